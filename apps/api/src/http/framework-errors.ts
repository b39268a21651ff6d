import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { blazarError } from './blazar-error.js';
import { pathOf } from './exchange.js';

const decodes = (segment: string): boolean => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};

/** What the router refuses, in the words clients saw from Express's: a segment that does not decode is named. */
const messageOf = (error: FastifyError, request: FastifyRequest): string => {
  const segment =
    error.code === 'FST_ERR_BAD_URL'
      ? pathOf(request)
          .split('/')
          .find((part) => !decodes(part))
      : undefined;
  return segment === undefined ? error.message : `Failed to decode param '${segment}'`;
};

/**
 * The router's own refusals, before any hook or route (a path whose percent-encoding is no UTF-8, an over-long
 * parameter), answered in Blazar's body: they reach neither the hooks nor the exception filter.
 */
export const frameworkErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply.code(status).send(blazarError(status, messageOf(error, request)));
};
