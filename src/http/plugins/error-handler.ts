// The one place where failures become HTTP responses: ServiceError codes map to statuses here,
// framework errors (bad JSON, wrong content type, schema violations) become validation_failed,
// and anything unexpected is logged with the request ID and answered with a bare internal_error.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DependencyUnavailableError,
  errorObject,
  listedDetails,
  OAuthError,
  RateLimitExceeded,
  ServiceError,
  validationFailed,
  type ErrorCode,
  type FieldIssue,
  type OAuthErrorCode,
} from '../../shared/errors.ts';
import { asDependencyError } from '../../storage/db/errors.ts';
import { issuesFromAjv } from '../validation.ts';
import { newRequestId } from '../request-id.ts';
import { edgeHeaders } from './response-headers.ts';

const STATUS_OF: Record<ErrorCode, number> = {
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

export { MAX_LISTED_DETAILS } from '../../shared/errors.ts';

/** The request parts as a validation answer names them when it speaks of the whole part. */
const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** Turns a framework (Fastify/AJV) client error into validation_failed; undefined if it is not one. */
function clientError(err: FastifyError, accepts = 'application/json'): ServiceError | undefined {
  if (err.validation) {
    const part = err.validationContext ?? 'request';
    const issues = issuesFromAjv(err.validation as never, part);
    return new ServiceError('validation_failed', 'The request is invalid.', listedDetails(issues, PART_NAMES[part] ?? part));
  }
  const issue = (field: string, message: string): FieldIssue[] => [{ field, message }];
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError('validation_failed', 'Unsupported Content-Type.', issue('Content-Type', `must be ${accepts}`));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('validation_failed', 'The body is too large.', issue('body', 'exceeds the size limit'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError('validation_failed', 'The body is empty.', issue('body', 'must be a JSON object'));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceError('validation_failed', 'Invalid Content-Length.', issue('Content-Length', 'does not match the body'));
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ServiceError('validation_failed', 'The body is not valid JSON.', issue('body', 'must be valid JSON'));
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    if (err.statusCode === 404) return new ServiceError('not_found', 'Not found.');
    return new ServiceError('validation_failed', 'The request is invalid.', issue('request', err.message));
  }
  return undefined;
}

/** What the error handler is given: a framework error, or a refusal it answers instead (a ServiceError). */
type Failure = FastifyError | ServiceError;

function toServiceError(err: Failure, accepts?: string): ServiceError | undefined {
  if (err instanceof ServiceError) return err;
  return asDependencyError(err) ?? clientError(err, accepts);
}

/** The /v1 error body, built here only: every failure on /v1, the console API and ops answers with it. */
function errorBody(err: ServiceError, requestId: string) {
  return { error: errorObject(err), meta: { requestId } };
}

/** Logs a failure that is not a ServiceError and answers it with a bare internal_error. */
function unexpected(request: FastifyRequest, err: unknown): ServiceError {
  request.log.error({ err }, 'unexpected error');
  return new ServiceError('internal_error', `An unexpected error occurred. Quote request ID ${request.id} when reporting it.`);
}

const OAUTH_STATUS_OF: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  temporarily_unavailable: 503,
};

/** The token endpoint's description of a client error: its first field issue, else its message. */
function describeClientError(err: ServiceError): string {
  const [first] = err.details;
  return first && 'field' in first ? `${first.field}: ${first.message}` : err.message;
}

/** The token endpoint's answer: its own body, `{ error, error_description }`, never cached. */
function sendOAuth(request: FastifyRequest, reply: FastifyReply, err: Failure) {
  let answer: [error: string, description: string, status: number];
  const service = err instanceof OAuthError ? undefined : toServiceError(err);
  if (err instanceof OAuthError) {
    answer = [err.error, err.message, OAUTH_STATUS_OF[err.error]];
  } else if (service instanceof DependencyUnavailableError) {
    answer = ['temporarily_unavailable', service.message, 503];
  } else if (service instanceof RateLimitExceeded) {
    // the shared limiter's refusal, in the token endpoint's words
    reply.header('Retry-After', String(service.retryAfterSec));
    answer = ['temporarily_unavailable', service.message, 429];
  } else if (service && STATUS_OF[service.code] < 500) {
    answer = ['invalid_request', describeClientError(service), 400];
  } else {
    request.log.error({ err }, 'unexpected error');
    answer = ['server_error', `Unexpected error; request ID ${request.id}.`, 500];
  }
  const [error, description, status] = answer;
  reply.header('Cache-Control', 'no-store');
  return reply.code(status).send({ error, error_description: description });
}

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL such as
 * `/v1/%`), which bypass hooks and the error handler, answer with the same body and request ID.
 */
export function sendFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const service = known
    ? validationFailed([{ field: 'url', message: 'is not a valid URL' }], 'The URL is invalid.')
    : unexpected(request, err);
  reply.header('X-Request-Id', request.id);
  reply.headers(edgeHeaders(request.url));
  return reply.code(STATUS_OF[service.code]).send(errorBody(service, request.id));
}

/** What a request Node's HTTP parser refused was missing, by llhttp's error code. */
function parseIssue(code: string | undefined): FieldIssue {
  switch (code) {
    case 'HPE_INVALID_METHOD':
      return { field: 'method', message: 'is not an HTTP method' };
    case 'HPE_INVALID_URL':
      return { field: 'url', message: 'is not a valid request target' };
    case 'HPE_INVALID_VERSION':
      return { field: 'request', message: 'must be HTTP/1.1 or HTTP/1.0' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { field: 'Content-Length', message: 'must be one whole number, without Transfer-Encoding' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { field: 'Transfer-Encoding', message: 'must end with chunked' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_EOF_STATE':
      return { field: 'body', message: 'is not valid chunked transfer coding' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
      return { field: 'headers', message: 'are malformed (each must be "Name: value" on its own CRLF-terminated line)' };
    default:
      return { field: 'request', message: 'is not a valid HTTP/1.1 request' };
  }
}

/**
 * Fastify's `clientErrorHandler` option: a request Node refused before Fastify saw it (headers too
 * large, malformed HTTP, the request time-out) gets the /v1 error body with a fresh request ID,
 * written straight to the socket (there is no request or reply object), then the connection
 * closes. Bound to the Fastify instance.
 */
export function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = newRequestId();
  let status: number;
  let error: ServiceError;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const seconds = Math.round((this.server as http.Server).requestTimeout / 1000);
    status = 408;
    error = validationFailed(
      [{ field: 'request', message: `must arrive completely within ${seconds} s` }],
      'The request took too long to arrive.',
    );
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    error = validationFailed(
      [{ field: 'headers', message: `the request line and headers must be at most ${http.maxHeaderSize} bytes together` }],
      'The request headers are too large.',
    );
  } else {
    status = 400;
    error = validationFailed([parseIssue(err.code)], 'The request is not valid HTTP.');
  }
  // Only the code: the error's raw packet would hold the client's headers (and their secrets).
  this.log.debug({ requestId, code: err.code, status }, 'client error');
  // As Node does: write nothing once an answer to this request has started.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody(error, requestId));
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      ...edgeHeaders('/v1/'),
      Connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    // Closed once the answer is flushed, even if the client keeps its side open.
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n${body}`, () => socket.destroy());
  } else {
    socket.destroy();
  }
}

/** The codes of a /v1 401: the bearer token is missing, or not one that is good now. */
const BEARER_FAILURES: ReadonlySet<ErrorCode> = new Set(['unauthorized', 'token_revoked', 'token_stale']);

/** error_description of each 401, in the characters a quoted-string allows (RFC 6750 section 3). */
const INVALID_TOKEN_DESCRIPTION: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'The access token is malformed or unknown',
  token_revoked: 'The credential that issued the access token was revoked',
  token_stale: 'The access token has expired or its credential changed; request a new one',
};

/**
 * The RFC 6750 challenge of a /v1 401: a request that sent no bearer token (no Authorization
 * header, or another scheme) is told only the scheme; one whose bearer token failed gets
 * `error="invalid_token"` and why.
 */
function bearerChallenge(code: ErrorCode, authorization: string | undefined): string {
  if (!/^Bearer(?:\s|$)/i.test(authorization?.trim() ?? '')) return 'Bearer';
  return `Bearer error="invalid_token", error_description="${INVALID_TOKEN_DESCRIPTION[code]}"`;
}

/** Whether `err` is answered 400 (validation_failed, or the token endpoint's invalid_request). */
function answersBadRequest(err: FastifyError, accepts?: string): boolean {
  if (err instanceof OAuthError) return err.error === 'invalid_request';
  const service = toServiceError(err, accepts);
  return service !== undefined && STATUS_OF[service.code] === 400;
}

export function registerErrorHandler(app: FastifyInstance, onDependencyError?: (err: DependencyUnavailableError) => void) {
  app.setErrorHandler((caught: FastifyError, request, reply) => {
    // An address over the malformed-request limit, on a route that reads its body first: its 400s become that refusal.
    const refuse = request.malformedRefusal;
    const err: Failure = refuse && answersBadRequest(caught, request.routeOptions.config?.accepts) ? refuse() : caught;
    if (request.routeOptions.config?.oauthErrors) return sendOAuth(request, reply, err);
    const service = toServiceError(err, request.routeOptions.config?.accepts) ?? unexpected(request, err);
    if (service instanceof DependencyUnavailableError) {
      onDependencyError?.(service);
      request.log.warn({ err: service.cause ?? service }, 'dependency unavailable');
      reply.header('Retry-After', '5');
    } else if (service instanceof RateLimitExceeded) {
      reply.header('Retry-After', String(service.retryAfterSec));
    } else if (BEARER_FAILURES.has(service.code) && /^\/v1(?:[/?]|$)/.test(request.routeOptions.url ?? request.url)) {
      reply.header('WWW-Authenticate', bearerChallenge(service.code, request.headers.authorization));
    }
    return reply.code(STATUS_OF[service.code]).send(errorBody(service, request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const service = new ServiceError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
    return reply.code(STATUS_OF[service.code]).send(errorBody(service, request.id));
  });
}
