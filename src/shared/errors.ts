// The closed set of failures the domain can report. They carry a code, never a status: the error
// handler (src/http/plugins/error-handler.ts) owns the one mapping from code to status.
import { Type, type Static } from 'typebox';

export const ERROR_CODES = [
  'validation_failed',
  'idempotency_key_required',
  'unauthorized',
  'token_revoked',
  'token_stale',
  'forbidden',
  'plan_restricted',
  'not_found',
  'idempotency_key_reused',
  'idempotency_request_in_progress',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

// The entries of an error's details: which field is wrong, which dependency is down, or how long
// to wait.
export const FieldIssue = Type.Object({
  field: Type.String(),
  message: Type.String(),
  // Extension (program documents, issue 25): where the problem is in the body, when it is a document.
  line: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Extension: the line of the problem in a program document body or an XML scanner file.' }),
  ),
  column: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Extension: the column of the problem in a program document body or an XML scanner file.' }),
  ),
});
export const DependencyIssue = Type.Object({ dependency: Type.String(), issue: Type.String() });
export const RetryAfter = Type.Object({ retryAfterSec: Type.Integer() });
export const ErrorDetail = Type.Union([FieldIssue, DependencyIssue, RetryAfter]);

/** The `error` object of every /v1 error body (and of a failed job, domain/jobs/schema.ts). */
export const ErrorObject = Type.Object({
  code: Type.Enum([...ERROR_CODES]),
  message: Type.String(),
  details: Type.Array(ErrorDetail),
});

export type FieldIssue = Static<typeof FieldIssue>;
export type DependencyIssue = Static<typeof DependencyIssue>;
export type RetryAfter = Static<typeof RetryAfter>;
export type ErrorDetail = Static<typeof ErrorDetail>;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
  }
}

/**
 * Most entries of an error's `details`. A request can break a rule per field it sends (a body of
 * 130,000 unknown keys did, and was answered with 6.6 MB of details); past this many the answer
 * lists the first ones and says how many more there are (docs/security.md, "Malformed requests"). Here, not in
 * the error handler, because a job's stored error (domain/jobs/) is the same body.
 */
export const MAX_LISTED_DETAILS = 20;

/**
 * `details` within MAX_LISTED_DETAILS: when there are more, the first ones and, last, an entry
 * naming `field` (the part of the request they are in) that says how many more there are.
 */
export function listedDetails<T>(details: T[], field: string): Array<T | FieldIssue> {
  if (details.length <= MAX_LISTED_DETAILS) return details;
  const shown = details.slice(0, MAX_LISTED_DETAILS - 1);
  const more = details.length - shown.length;
  return [...shown, { field, message: `has ${more} more problems that are not listed` }];
}

/** The `error` object of the /v1 error body: what a request answers and what a failed job stores. */
export function errorObject(err: ServiceError): Static<typeof ErrorObject> {
  return { code: err.code, message: err.message, details: listedDetails(err.details, 'request') };
}

export const validationFailed = (issues: FieldIssue[], message = 'The request is invalid.') =>
  new ServiceError('validation_failed', message, issues);

export const notFound = (what: string) => new ServiceError('not_found', `${what} was not found.`);

/** A dependency (database, Redis, blob store) is unreachable; recoverable without a restart. */
export class DependencyUnavailableError extends ServiceError {
  readonly dependency: string;
  readonly issue: string;
  constructor(dependency: string, issue: string, options?: { cause?: unknown }) {
    super('upstream_unavailable', `The ${dependency} is temporarily unavailable.`, [{ dependency, issue }]);
    this.dependency = dependency;
    this.issue = issue;
    if (options?.cause) this.cause = options.cause;
  }
}

/** The caller is over a rate limit; `retryAfterSec` is how long to wait (the error handler passes it on). */
export class RateLimitExceeded extends ServiceError {
  readonly retryAfterSec: number;
  constructor(retryAfterSec: number, message: string) {
    super('rate_limit_exceeded', message, [{ retryAfterSec }]);
    this.retryAfterSec = retryAfterSec;
  }
}

/** Errors of the token endpoint, which has its own body shape ({ error, error_description }). */
export const OAUTH_ERRORS = ['invalid_request', 'invalid_client', 'temporarily_unavailable'] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
  }
}
