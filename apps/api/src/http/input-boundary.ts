import { isUtf8 } from 'node:buffer';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, invalid } from '#domain/index.js';
import { JSON_TEXT_FIELDS, checkInputTree } from './input-rules.js';
import { pathOf } from './exchange.js';

/** A GraphQL document is text laid out in lines: its whitespace is allowed where JSON text's is; its variables obey every rule. */
const GRAPHQL_TEXT_FIELDS: ReadonlySet<string> = new Set([...JSON_TEXT_FIELDS, 'query']);

const textFieldsOf = (request: FastifyRequest): ReadonlySet<string> =>
  pathOf(request) === '/graphql' ? GRAPHQL_TEXT_FIELDS : JSON_TEXT_FIELDS;

const notUtf8 = (): DomainError => invalid('MALFORMED_BODY', 'Malformed request body (not valid UTF-8)');

const notJson = (position: string | undefined): DomainError =>
  invalid('MALFORMED_BODY', `Malformed request body (not valid JSON${position === undefined ? '' : ` at position ${position}`})`);

/** The largest body the API reads, as Express's JSON parser had it: no Blazar body comes near it. */
export const BODY_LIMIT_BYTES = 100 * 1024;

const POSITION = /at position (\d+)/;

/** JSON's own whitespace, then the first character of the document. */
const FIRST_CHARACTER = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/;

/** `utf-8`, `utf8`, `UTF-16`: a charset the body may be declared in; anything else is not read. */
const charsetOf = (contentType: string | undefined): string | null =>
  /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1] ?? null;

/**
 * A JSON body as the API reads it: an object or an array (a bare string or number is no request), in UTF-8, refused in the
 * API's words: a syntax error is located by its position only (V8's message quotes the body, which may hold anything),
 * bytes that are not UTF-8 are said to be. An empty body is an empty object, as clients that send none with the type expect.
 */
export const parseJsonBody = (body: Buffer, contentType: string | undefined): unknown => {
  const charset = charsetOf(contentType);
  if (charset !== null && !charset.toLowerCase().startsWith('utf-')) {
    throw new UnsupportedMediaTypeException(`unsupported charset "${charset.toUpperCase()}"`);
  }
  if (body.length === 0) return {};
  if (!isUtf8(body)) throw notUtf8();
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  const first = FIRST_CHARACTER.exec(text)?.[1];
  if (first !== undefined && first !== '{' && first !== '[') throw notJson(String(text.indexOf(first)));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw notJson(error instanceof Error ? POSITION.exec(error.message)?.[1] : undefined);
  }
};

/** A body read whole but refused: the refusal is answered by the input boundary, on a connection kept open. */
class UnreadableBody {
  constructor(readonly error: Error) {}
}

/**
 * The API speaks JSON: a JSON body is parsed (parseJsonBody), any other body is not read at all, so its route sees none, as
 * it sees none in a GET. Fastify's own parsers (JSON and plain text) are replaced. A parser's error would close the
 * connection (Fastify cannot know the body was read to its end): a body that is not JSON is refused by the boundary.
 */
export const readBodies = (server: FastifyInstance): void => {
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, request.headers['content-type']));
    } catch (error) {
      done(null, new UnreadableBody(error as Error));
    }
  });
  server.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
};

/**
 * The input boundary: after the body is parsed and before the route's guards, pipes and handler, so every route (today's
 * and the next one) gets a body and a query that obey input-rules.ts, whatever the handler reads them with. Path parameters
 * are checked per route by RouteParametersPipe, which knows what each one names.
 */
export const inputBoundary = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
  try {
    if (request.body instanceof UnreadableBody) throw request.body.error;
    checkInputTree(request.query, [], textFieldsOf(request));
    if (request.body !== undefined) checkInputTree(request.body, [], textFieldsOf(request));
    done();
  } catch (error) {
    done(error as Error);
  }
};
