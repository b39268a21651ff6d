import { isUtf8 } from 'node:buffer';
import type { RawBodyRequest } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { type DomainError, invalid } from '#domain/index.js';
import { JSON_TEXT_FIELDS, checkInputTree } from './input-rules.js';

/** A GraphQL document is text laid out in lines: its whitespace is allowed where JSON text's is; its variables obey every rule. */
const GRAPHQL_TEXT_FIELDS: ReadonlySet<string> = new Set([...JSON_TEXT_FIELDS, 'query']);

const textFieldsOf = (request: Request): ReadonlySet<string> => (request.path === '/graphql' ? GRAPHQL_TEXT_FIELDS : JSON_TEXT_FIELDS);

const notUtf8 = (): DomainError => invalid('MALFORMED_BODY', 'Malformed request body (not valid UTF-8)');

/** The JSON parser decodes invalid UTF-8 into U+FFFD without a word: its raw bytes (Nest's `rawBody` option) tell. */
const hasInvalidUtf8 = (request: Request): boolean => {
  const raw = (request as RawBodyRequest<Request>).rawBody;
  return raw !== undefined && !isUtf8(raw);
};

/**
 * The input boundary: after the JSON parser and before routing, so every route (today's and the
 * next one) gets a body and a query that obey input-rules.ts, whatever the handler reads them with.
 * Path parameters are checked per route by RouteParametersPipe, which knows what each one names.
 */
export const inputBoundary =
  () =>
  (request: Request, _response: Response, next: NextFunction): void => {
    try {
      if (hasInvalidUtf8(request)) throw notUtf8();
      checkInputTree(request.query, [], textFieldsOf(request));
      if (request.body !== undefined) checkInputTree(request.body, [], textFieldsOf(request));
      next();
    } catch (error) {
      next(error);
    }
  };

const isParseFailure = (error: unknown): error is Error =>
  error instanceof Error && (error as { type?: unknown }).type === 'entity.parse.failed';

const POSITION = /at position (\d+)/;

/**
 * The JSON parser's refusals in the API's words: a syntax error is located by its position only
 * (V8's message quotes the body, which may hold anything), bytes that are not UTF-8 are said to be.
 */
export const bodyParserErrors =
  () =>
  (error: unknown, request: Request, _response: Response, next: NextFunction): void => {
    if (!isParseFailure(error)) return next(error);
    if (hasInvalidUtf8(request)) return next(notUtf8());
    const position = POSITION.exec(error.message)?.[1];
    next(invalid('MALFORMED_BODY', `Malformed request body (not valid JSON${position === undefined ? '' : ` at position ${position}`})`));
  };
