// HTTP side of idempotent writes: the Idempotency-Key header (required, with the spec's pattern),
// checked before the body so a missing key is reported as such, and the reply of an outcome,
// replays marked with `Idempotent-Replayed: true`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authorize, type Resource } from '../domain/auth/scopes.ts';
import { ServiceError } from '../domain/errors.ts';
import { IDEMPOTENCY_KEY_PATTERN, type Outcome } from '../domain/idempotency/run.ts';
import { envelope } from './reply.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

/** The request headers of a write, for the OpenAPI document. */
export const WriteHeaders = Type.Object({
  'idempotency-key': Type.String({
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
    description:
      'Required. 1-128 letters, digits, `.`, `_`, `~`, `-`. Scoped to the credential; a retry with the same key and body within 24 hours replays the first response.',
  }),
});

/** preValidation hooks of a write: the scope first (403 before anything else), then the key. */
export function writeGuards(resource: Resource) {
  return [
    async (request: FastifyRequest) => {
      if (request.actor) authorize(request.actor, resource, 'write');
    },
    async (request: FastifyRequest) => {
      request.idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
    },
  ];
}

export function idempotencyKeyOf(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new ServiceError('idempotency_key_required', 'This write needs an Idempotency-Key header.');
  }
  if (Array.isArray(header) || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new ServiceError('validation_failed', 'The Idempotency-Key header is invalid.', [
      { field: 'Idempotency-Key', message: 'must be given once, 1-128 characters of letters, digits, ".", "_", "~", "-"' },
    ]);
  }
  return header;
}

export function sendOutcome(request: FastifyRequest, reply: FastifyReply, outcome: Outcome) {
  for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.statusCode).send(envelope(request, outcome.data));
}
