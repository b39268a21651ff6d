import type { FastifyReply } from 'fastify';

/** keystonemiddleware's bodies, byte for byte (Python's json.dumps spacing), as clients have seen them. */
export const UNAUTHORIZED_BODY =
  '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}';
export const UNAVAILABLE_BODY =
  '{"error": {"code": 503, "title": "Service Unavailable", "message": "The server is currently unavailable. Please try again at a later time."}}';

/** 401 as keystonemiddleware answers a missing or refused token, with `WWW-Authenticate: Keystone uri="..."`. */
export const sendUnauthorized = (reply: FastifyReply, wwwAuthenticateUri: string | null): void => {
  if (wwwAuthenticateUri !== null) reply.header('WWW-Authenticate', `Keystone uri="${wwwAuthenticateUri}"`);
  void reply.code(401).type('application/json; charset=utf-8').send(UNAUTHORIZED_BODY);
};

/** 503 when the identity service cannot answer: the caller may retry, nothing was done. */
export const sendUnavailable = (reply: FastifyReply): void => {
  void reply.code(503).type('application/json; charset=utf-8').send(UNAVAILABLE_BODY);
};
