// The one place where failures become HTTP responses: ServiceError codes map to statuses here,
// framework errors (bad JSON, wrong content type, schema violations) become validation_failed,
// and anything unexpected is logged with the request ID and answered with a bare internal_error.
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
  return reply.code(known ? 400 : 500).send({ error, meta: { requestId: request.id } });
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
