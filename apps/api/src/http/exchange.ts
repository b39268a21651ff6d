import type { FastifyReply, FastifyRequest } from 'fastify';

/** An HTTP request as the routes, guards, interceptors and hooks see it (Nest on Fastify). */
export type Request = FastifyRequest;

/** The reply to it. */
export type Response = FastifyReply;

/** The request's path, without its query string, as the client sent it. */
export const pathOf = (request: Request): string => {
  const { url } = request;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** A request header's single value (a repeated header is read as its first value), or undefined. */
export const headerOf = (request: Request, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
