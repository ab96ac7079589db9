// Everything the SDK throws on purpose extends ComplianceError. An answer of the service that is
// not a success becomes a ComplianceApiError subclass chosen by HTTP status, carrying the spec's
// error body (code, message, details) and the request ID; failures without an answer are
// ConnectionError or TimeoutError.
import type { ErrorBody, ErrorCode, OAuthErrorCode } from './generated/api.ts';

export type ErrorDetail = ErrorBody['error']['details'][number];

/** `/v1` codes, token-endpoint codes, or `unexpected_response` for a body in neither shape. */
export type ApiErrorCode = ErrorCode | OAuthErrorCode | 'unexpected_response';

export class ComplianceError extends Error {
  override name = 'ComplianceError';
  /**
   * Set on errors of writes: the Idempotency-Key the attempts used. After a ConnectionError,
   * TimeoutError or an `idempotency_request_in_progress` conflict the outcome is unknown; calling
   * again with this key (and the same input) either replays the stored answer or does the write once.
   */
  idempotencyKey?: string;
}

export interface ApiErrorInit {
  status: number;
  code: ApiErrorCode;
  message: string;
  details: ErrorDetail[];
  requestId: string | undefined;
  headers: Headers;
}

export class ComplianceApiError extends ComplianceError {
  override name = 'ComplianceApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: ErrorDetail[];
  /** `meta.requestId` of the answer (the `X-Request-Id` header); quote it when reporting a problem */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 400: `validation_failed` (details name the fields) or `idempotency_key_required`; `invalid_request` from the token endpoint */
export class ValidationError extends ComplianceApiError {
  override name = 'ValidationError';
}

/** 401: `unauthorized`, `token_stale`, `token_revoked`, or `invalid_client` from the token endpoint */
export class AuthenticationError extends ComplianceApiError {
  override name = 'AuthenticationError';
}

/** 403: `forbidden` (the credential lacks the scope) or `plan_restricted` */
export class PermissionDeniedError extends ComplianceApiError {
  override name = 'PermissionDeniedError';
}

/** 404: `not_found` */
export class NotFoundError extends ComplianceApiError {
  override name = 'NotFoundError';
}

/** 409: `idempotency_key_reused` or `idempotency_request_in_progress` */
export class ConflictError extends ComplianceApiError {
  override name = 'ConflictError';
}

/** 429: `rate_limit_exceeded`, or `temporarily_unavailable` from the token endpoint */
export class RateLimitError extends ComplianceApiError {
  override name = 'RateLimitError';
  /** the `Retry-After` header, in seconds, when the service sent one */
  get retryAfterSec(): number | undefined {
    const value = Number(this.headers.get('retry-after'));
    return this.headers.has('retry-after') && Number.isFinite(value) ? value : undefined;
  }
}

/** 500: `internal_error` (or `server_error` from the token endpoint) */
export class InternalServerError extends ComplianceApiError {
  override name = 'InternalServerError';
}

/** 503: `upstream_unavailable` (details name the dependency) or `temporarily_unavailable` */
export class ServiceUnavailableError extends ComplianceApiError {
  override name = 'ServiceUnavailableError';
}

/**
 * No answer: the service could not be reached, or the connection dropped. The message is one line
 * (`cannot reach http://127.0.0.1:3000: connection refused`); `cause` holds the platform's error.
 */
export class ConnectionError extends ComplianceError {
  override name = 'ConnectionError';
  /** the platform's error code when there is one (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, …) */
  readonly code: string | undefined;
  /** the URL of the request that failed */
  readonly url: string | undefined;
  constructor(message: string, options: { cause?: unknown; code?: string; url?: string } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.url = options.url;
  }
}

/** No answer within `timeoutMs` (for one attempt, including reading the body). */
export class TimeoutError extends ComplianceError {
  override name = 'TimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** A walk over every page collected a different number of items than `meta.totalCount`. */
export class TotalCountMismatchError extends ComplianceError {
  override name = 'TotalCountMismatchError';
  readonly expected: number;
  readonly received: number;
  constructor(expected: number, received: number) {
    super(
      `collected ${received} items across all pages but meta.totalCount is ${expected}; the data changed during the walk, or a page was lost`,
    );
    this.expected = expected;
    this.received = received;
  }
}

/** The service answered in a way the pagination rules rule out (a repeated cursor, an empty page before the end). */
export class PaginationError extends ComplianceError {
  override name = 'PaginationError';
}

/** What a webhook verification found wrong (`WebhookVerificationError.reason`). */
export type WebhookVerificationFailure =
  /** webhook-id, webhook-timestamp or webhook-signature is absent */
  | 'missing_header'
  /** a header is there but unreadable: a timestamp that is not whole seconds, no `v1,` signature, a repeated id */
  | 'invalid_header'
  /** webhook-timestamp is older than the tolerance allows: a replay, or the receiver's clock is off */
  | 'timestamp_too_old'
  /** webhook-timestamp is further in the future than the tolerance allows: a clock is off */
  | 'timestamp_too_new'
  /** no signature matches any secret given: a wrong secret, or a body that changed after signing */
  | 'no_matching_signature'
  /** the signature matches but the body is not a JSON event */
  | 'invalid_payload';

/**
 * A webhook request that must not be trusted (webhooks.verify). Answer it with a 4xx and do not
 * act on it; `reason` says what failed and `header` which header, when one is to blame.
 */
export class WebhookVerificationError extends ComplianceError {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationFailure;
  readonly header: string | undefined;
  constructor(reason: WebhookVerificationFailure, message: string, header?: string) {
    super(message);
    this.reason = reason;
    this.header = header;
  }
}

const byStatus: Record<number, typeof ComplianceApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The error for a non-success answer, read from either error body of the spec. */
export function apiErrorFromResponse(status: number, headers: Headers, text: string): ComplianceApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headerId = headers.get('x-request-id') ?? undefined;
  const init: ApiErrorInit = {
    status,
    code: 'unexpected_response',
    message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    details: [],
    requestId: headerId,
    headers,
  };
  if (isObject(body) && isObject(body.error) && typeof body.error.code === 'string') {
    init.code = body.error.code as ErrorCode;
    init.message = typeof body.error.message === 'string' ? body.error.message : init.code;
    init.details = Array.isArray(body.error.details) ? (body.error.details as ErrorDetail[]) : [];
    const meta = body.meta;
    if (isObject(meta) && typeof meta.requestId === 'string') init.requestId = meta.requestId;
  } else if (isObject(body) && typeof body.error === 'string') {
    init.code = body.error as OAuthErrorCode;
    init.message = typeof body.error_description === 'string' ? body.error_description : body.error;
  }
  const Kind = byStatus[status] ?? ComplianceApiError;
  return new Kind(init);
}

/** The status each code of the spec is answered with (the service's one mapping, error-handler.ts). */
const STATUS_OF_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  token_revoked: 401,
  token_stale: 401,
  forbidden: 403,
  plan_restricted: 403,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  rate_limit_exceeded: 429,
  internal_error: 500,
  upstream_unavailable: 503,
};

/**
 * The error of a failed job: its `error` is the object the synchronous request would have answered,
 * so it is thrown as the same class, with the status that request would have had.
 */
export function apiErrorFromJob(
  error: { code: ErrorCode; message: string; details: ErrorDetail[] },
  headers: Headers,
  requestId: string | undefined,
): ComplianceApiError {
  const status = STATUS_OF_CODE[error.code] ?? 500;
  const Kind = byStatus[status] ?? ComplianceApiError;
  return new Kind({ status, code: error.code, message: error.message, details: error.details, requestId, headers });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
