// The ID of one request: in every answer's X-Request-Id header and error body, and on every log
// line of the request. Made here, never taken from the client (the spec promises a unique one).
import { randomBytes } from 'node:crypto';

export const newRequestId = () => `req_${randomBytes(12).toString('hex')}`;
