import { isUtf8 } from 'node:buffer';
import type { RawBodyRequest } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { invalid } from '../../../../libs/domain/src/index.js';
import { checkInputTree } from './input-rules.js';

/**
 * The input boundary: after the JSON parser and before routing, so every route (today's and the
 * next one) gets a body and a query that obey input-rules.ts, whatever the handler reads them with.
 * The parser decodes invalid UTF-8 into U+FFFD without a word, so the raw bytes (kept by Nest's
 * `rawBody` option) are checked first. Path parameters are checked per route by RouteParametersPipe,
 * which knows what each one names.
 */
export const inputBoundary =
  () =>
  (request: Request, _response: Response, next: NextFunction): void => {
    try {
      const raw = (request as RawBodyRequest<Request>).rawBody;
      if (raw !== undefined && !isUtf8(raw)) throw invalid('MALFORMED_BODY', 'Malformed request body (not valid UTF-8)');
      checkInputTree(request.query);
      if (request.body !== undefined) checkInputTree(request.body);
      next();
    } catch (error) {
      next(error);
    }
  };
