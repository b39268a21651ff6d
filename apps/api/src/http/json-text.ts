import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Observable, map } from 'rxjs';

/** A response body already serialised (a list assembled from stored documents), sent as is. */
export class JsonText {
  constructor(readonly text: string) {}

  /** The object body with one more field, as `{ ...body, [name]: value }` gives it. */
  withField(name: string, value: unknown): JsonText {
    return new JsonText(`${this.text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`);
  }
}

/** Outermost: a JsonText leaves as its text, typed as JSON, whatever the interceptors inside it did. */
@Injectable()
export class JsonTextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((body: unknown) => {
        if (!(body instanceof JsonText)) return body;
        context.switchToHttp().getResponse<FastifyReply>().type('application/json; charset=utf-8');
        return body.text;
      }),
    );
  }
}
