// The HTTP side of the console's admin API (/console/api), shown in the OpenAPI document under the
// "console" tag: the CSRF header, the security scheme and the error responses (the same body as
// /v1). The shapes of its answers are the domain's (src/domain/console/schema.ts and
// src/domain/auth/schema.ts).
import { Type } from 'typebox';
import type { Credential } from '../../../domain/auth/schema.ts';

export const CsrfHeaders = Type.Object({
  // Checked against the session before validation: any other value answers 403.
  'x-csrf-token': Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', maxLength: 43, description: 'The csrfToken of the session.' }),
});

export const CONSOLE_SECURITY = [{ consoleSession: [] }];

export const consoleErrors = (extra: Record<number, string> = {}) => {
  const base: Record<number, string> = {
    400: 'validation_failed: the body or a parameter is invalid (details name it)',
    401: 'unauthorized: not signed in, or the session has ended',
    403: 'forbidden: the X-CSRF-Token header is missing or wrong, or the request is cross-site',
    500: 'internal_error',
    503: 'upstream_unavailable: a dependency is down',
    ...extra,
  };
  return Object.fromEntries(Object.entries(base).map(([status, description]) => [status, { description, $ref: 'ErrorBody#' }]));
};

/** The credential as the console sees it: without the organization and region the verbs add. */
export const credentialView = (c: Credential): Credential => ({
  id: c.id,
  name: c.name,
  clientId: c.clientId,
  accessLevel: c.accessLevel,
  status: c.status,
  createdAt: c.createdAt,
  lastUsedAt: c.lastUsedAt,
  revokedAt: c.revokedAt,
});
