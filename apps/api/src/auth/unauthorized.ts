import type { Response } from 'express';

/** keystonemiddleware's bodies, byte for byte (Python's json.dumps spacing), as clients have seen them. */
export const UNAUTHORIZED_BODY =
  '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}';
export const UNAVAILABLE_BODY =
  '{"error": {"code": 503, "title": "Service Unavailable", "message": "The server is currently unavailable. Please try again at a later time."}}';

/** 401 as keystonemiddleware answers a missing or refused token, with `WWW-Authenticate: Keystone uri="..."`. */
export const sendUnauthorized = (response: Response, wwwAuthenticateUri: string | null): void => {
  if (wwwAuthenticateUri !== null) response.setHeader('WWW-Authenticate', `Keystone uri="${wwwAuthenticateUri}"`);
  response.status(401).type('application/json').send(UNAUTHORIZED_BODY);
};

/** 503 when the identity service cannot answer: the caller may retry, nothing was done. */
export const sendUnavailable = (response: Response): void => {
  response.status(503).type('application/json').send(UNAVAILABLE_BODY);
};
