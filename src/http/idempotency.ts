// HTTP side of idempotent writes: the Idempotency-Key header (required, with the spec's pattern),
// checked before the body so a missing key is reported as such, and the reply of an outcome: 201
// for a creation (with `Location` where the resource has a path), 200 for an update, 202 for bulk
// work accepted as a job (with `Location` where to follow it), replays
// marked with `Idempotent-Replayed: true`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authorize, type Resource } from '../domain/auth/scopes.ts';
import { ServiceError } from '../shared/errors.ts';
import { fingerprintSubject } from '../domain/idempotency/fingerprint.ts';
import { IDEMPOTENCY_KEY_PATTERN, type IdempotencyInput, type Outcome } from '../domain/idempotency/run.ts';
import { envelope } from './reply.ts';
import { requestContext } from './plugins/auth.ts';
import type { Context, SystemContext } from '../domain/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

/** The request headers of a write, for the OpenAPI document. */
export const WriteHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: 128,
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

/**
 * preValidation hooks of a move whose body is optional (approve, submit…): writeGuards, then no
 * body at all is read as `{}`, so a client may send either and both name the same request.
 */
export function moveGuards(resource: Resource) {
  return [
    ...writeGuards(resource),
    async (request: FastifyRequest) => {
      if (request.body === undefined || request.body === null) request.body = {};
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

/**
 * The write's key (checked by writeGuards), and the subject the previous version's fingerprints
 * hashed for a target: the method and `legacyPath(target)`, the canonical path it used. Records
 * stored before the upgrade then still replay (docs/decisions/writes-and-uploads.md, "Fingerprint").
 */
export function idempotencyOf(request: FastifyRequest, legacyPath: (target: string) => string): IdempotencyInput {
  return { key: request.idempotencyKey!, legacySubject: (target) => fingerprintSubject(request.method, legacyPath(target)) };
}

const STATUS_OF = { created: 201, updated: 200, accepted: 202 } as const;

/** Replies with an outcome; `location` gives the path of a created resource or of an accepted job, when it has one. */
export function sendOutcome<T>(request: FastifyRequest, reply: FastifyReply, outcome: Outcome<T>, location?: (resource: T) => string) {
  if (outcome.kind !== 'updated' && location) reply.header('Location', location(outcome.resource));
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(STATUS_OF[outcome.kind]).send(envelope(request, outcome.resource));
}

/** Runs a write verb for the request's credential and replies with its outcome (sendOutcome). */
export async function replyWrite<I, T>(
  system: SystemContext,
  request: FastifyRequest,
  reply: FastifyReply,
  verb: (args: { ctx: Context; input: I }) => Promise<Outcome<T>>,
  input: I,
  location?: (resource: T) => string,
) {
  return sendOutcome(request, reply, await verb({ ctx: requestContext(system, request), input }), location);
}
