// The one place where failures become HTTP responses: ServiceError codes map to statuses here,
// framework errors (bad JSON, wrong content type, schema violations) become validation_failed,
// and anything unexpected is logged with the request ID and answered with a bare internal_error.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DependencyUnavailableError,
  OAuthError,
  ServiceError,
  type ErrorCode,
  type FieldIssue,
} from '../../domain/errors.ts';
import { asDependencyError } from '../../storage/db/errors.ts';
import { issuesFromAjv } from '../validation.ts';
import { newRequestId } from '../request-id.ts';
import { edgeHeaders } from './response-headers.ts';

export const STATUS_OF: Record<ErrorCode, number> = {
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

/** Turns a framework (Fastify/AJV) client error into validation_failed; undefined if it is not one. */
function clientError(err: FastifyError, accepts = 'application/json'): ServiceError | undefined {
  if (err.validation) {
    const issues = issuesFromAjv(err.validation as never, err.validationContext ?? 'request');
    return new ServiceError('validation_failed', 'The request is invalid.', issues);
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

function toServiceError(err: FastifyError, accepts?: string): ServiceError | undefined {
  if (err instanceof ServiceError) return err;
  return asDependencyError(err) ?? clientError(err, accepts);
}

function sendOAuth(request: FastifyRequest, reply: FastifyReply, err: FastifyError) {
  let error: string;
  let description: string;
  let status: number;
  const known = err instanceof OAuthError ? err : undefined;
  const service = known ? undefined : toServiceError(err);
  if (known) {
    error = known.error;
    description = known.message;
    status = known.error === 'invalid_request' ? 400 : known.error === 'invalid_client' ? 401 : known.retryAfterSec ? 429 : 503;
    if (known.retryAfterSec) reply.header('Retry-After', String(known.retryAfterSec));
  } else if (service instanceof DependencyUnavailableError) {
    [error, description, status] = ['temporarily_unavailable', service.message, 503];
  } else if (service?.code === 'rate_limit_exceeded') {
    // the shared limiter's refusal, in the token endpoint's words
    const wait = (service.details[0] as { retryAfterSec?: number } | undefined)?.retryAfterSec;
    if (wait !== undefined) reply.header('Retry-After', String(wait));
    [error, description, status] = ['temporarily_unavailable', service.message, 429];
  } else if (service && STATUS_OF[service.code] < 500) {
    const field = (service.details[0] as FieldIssue | undefined)?.field;
    [error, description, status] = ['invalid_request', field ? `${field}: ${(service.details[0] as FieldIssue).message}` : service.message, 400];
  } else {
    request.log.error({ err }, 'unexpected error');
    [error, description, status] = ['server_error', `Unexpected error; request ID ${request.id}.`, 500];
  }
  reply.header('Cache-Control', 'no-store');
  return reply.code(status).send({ error, error_description: description });
}

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL such as
 * `/v1/%`), which bypass hooks and the error handler, answer with the same body and request ID.
 */
export function sendFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const error = known
    ? { code: 'validation_failed', message: 'The URL is invalid.', details: [{ field: 'url', message: 'is not a valid URL' }] }
    : { code: 'internal_error', message: `An unexpected error occurred. Quote request ID ${request.id} when reporting it.`, details: [] };
  if (!known) request.log.error({ err }, 'unexpected error');
  reply.header('X-Request-Id', request.id);
  reply.headers(edgeHeaders(request.url));
  return reply.code(known ? 400 : 500).send({ error, meta: { requestId: request.id } });
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
  let error: { code: ErrorCode; message: string; details: FieldIssue[] };
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const seconds = Math.round((this.server as http.Server).requestTimeout / 1000);
    status = 408;
    error = { code: 'validation_failed', message: 'The request took too long to arrive.', details: [{ field: 'request', message: `must arrive completely within ${seconds} s` }] };
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    error = { code: 'validation_failed', message: 'The request headers are too large.', details: [{ field: 'headers', message: `the request line and headers must be at most ${http.maxHeaderSize} bytes together` }] };
  } else {
    status = 400;
    error = { code: 'validation_failed', message: 'The request is not valid HTTP.', details: [parseIssue(err.code)] };
  }
  // Only the code: the error's raw packet would hold the client's headers (and their secrets).
  this.log.debug({ requestId, code: err.code, status }, 'client error');
  // As Node does: write nothing once an answer to this request has started.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ error, meta: { requestId } });
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      ...edgeHeaders('/v1/'),
      Connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    // Closed once the answer is flushed, even if the client keeps its side open.
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n${body}`, () => socket.destroy());
  } else {
    socket.destroy();
  }
}

export function registerErrorHandler(app: FastifyInstance, onDependencyError?: (err: DependencyUnavailableError) => void) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (request.routeOptions.config?.oauthErrors) return sendOAuth(request, reply, err);
    let service = toServiceError(err, request.routeOptions.config?.accepts);
    if (!service) {
      request.log.error({ err }, 'unexpected error');
      service = new ServiceError('internal_error', `An unexpected error occurred. Quote request ID ${request.id} when reporting it.`);
    } else if (service instanceof DependencyUnavailableError) {
      onDependencyError?.(service);
      request.log.warn({ err: service.cause ?? service }, 'dependency unavailable');
      reply.header('Retry-After', '5');
    } else if (service.code === 'rate_limit_exceeded' && !reply.hasHeader('Retry-After')) {
      // Limits raised by domain verbs (console sign-in) carry their wait in the details.
      const wait = (service.details[0] as { retryAfterSec?: number } | undefined)?.retryAfterSec;
      if (wait !== undefined) reply.header('Retry-After', String(wait));
    }
    return reply.code(STATUS_OF[service.code]).send({
      error: { code: service.code, message: service.message, details: service.details },
      meta: { requestId: request.id },
    });
  });

  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send({
      error: { code: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.`, details: [] },
      meta: { requestId: request.id },
    });
  });
}
