// pino options: JSON lines, the request ID on each, credentials and tokens never written.
import type { FastifyServerOptions } from 'fastify';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'client_secret',
  'clientSecret',
  'access_token',
  'password',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.password',
];

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
}
