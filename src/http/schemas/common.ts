// Shapes shared by every route: the success envelope and the two error bodies of the spec.
import { Type, type TSchema } from 'typebox';
import { ErrorObject, OAUTH_ERRORS } from '../../shared/errors.ts';

export const Meta = Type.Object({ requestId: Type.String({ description: 'Equals the X-Request-Id header.' }) });

/** `{ data, meta: { requestId } }`; `description` says what a success answers (the OpenAPI response's description). */
export function Envelope<T extends TSchema>(data: T, description: string) {
  return Type.Object({ data, meta: Meta }, { description });
}

/** A response schema with the description of its answer (the OpenAPI response's description). */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

export const ErrorBody = Type.Object(
  {
    error: ErrorObject,
    meta: Meta,
  },
  { $id: 'ErrorBody', description: 'The error body of every /v1 endpoint.' },
);

export const OAuthErrorBody = Type.Object(
  {
    error: Type.Enum([...OAUTH_ERRORS, 'server_error']),
    error_description: Type.String(),
  },
  { $id: 'OAuthErrorBody', description: 'The error body of the token endpoint.' },
);

const ref = (id: string, description: string) => ({ description, $ref: `${id}#` });

/** The documented error responses every authenticated /v1 route can give. */
export function v1Errors(extra: Record<number, string> = {}) {
  const base: Record<number, string> = {
    400: 'validation_failed: a parameter is invalid (details name it)',
    401: 'unauthorized, token_revoked or token_stale',
    403: 'forbidden (scope) or plan_restricted (plan)',
    429: 'rate_limit_exceeded; Retry-After says when to retry',
    500: 'internal_error',
    503: 'upstream_unavailable: a dependency is down (details name it)',
    ...extra,
  };
  return Object.fromEntries(Object.entries(base).map(([status, text]) => [status, ref('ErrorBody', text)]));
}

/**
 * v1Errors of an idempotent write: a 400 names `invalid` or the missing key; a 404, for a write to
 * one record, the `missing` record; a 409 a key reused with another `differing` (the body, unless
 * the write reads parts) or still in flight.
 */
export function writeErrors(invalid: string, missing?: string, differing = 'body') {
  return v1Errors({
    400: `${invalid}, or idempotency_key_required`,
    ...(missing === undefined ? {} : ({ 404: `not_found: no ${missing} with this ID in the organization` } as Record<number, string>)),
    409: `idempotency_key_reused (same key, different ${differing}) or idempotency_request_in_progress`,
  });
}
