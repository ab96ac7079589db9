// The closed set of failures the domain can report. They carry no HTTP status: the HTTP error
// handler (src/http/plugins/error-handler.ts) owns the one mapping from code to status.

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

export interface FieldIssue {
  field: string;
  message: string;
}

export interface DependencyIssue {
  dependency: string;
  issue: string;
}

export interface RetryAfter {
  retryAfterSec: number;
}

export type ErrorDetail = FieldIssue | DependencyIssue | RetryAfter;

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

/** The caller is over a rate limit; `retryAfterSec` becomes the Retry-After header. */
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
