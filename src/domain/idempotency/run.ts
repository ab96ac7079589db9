// Idempotent writes, as the spec's rules and docs/decisions.md describe them. A write first claims
// its key by inserting a row (the database decides, so this holds across nodes), then does its work
// and stores its response in the same transaction as the work. Concurrent requests with the key
// answer `idempotency_request_in_progress`; later ones get the stored response replayed, or
// `idempotency_key_reused` when their fingerprint differs. A failure releases the key, so only
// 2xx responses are ever replayed.
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../storage/db/connect.ts';
import type { Database } from '../../storage/db/schema.ts';
import {
  completeClaim,
  findRecord,
  insertClaim,
  releaseClaim,
  takeOverClaim,
  type IdempotencyRecord,
} from '../../storage/db/repositories/idempotency.ts';
import { ServiceError } from '../errors.ts';

/** Idempotency-Key header values the spec allows. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;
/** How long a successful response is replayed. */
export const REPLAY_WINDOW_MS = 24 * 3600_000;

export interface IdempotencySettings {
  /** an unfinished claim older than this is considered abandoned (its process died) */
  leaseMs: number;
  replayWindowMs: number;
}

export interface KeyScope {
  db: Db;
  credentialId: string;
  organizationId: string;
  key: string;
  now: () => number;
  settings: IdempotencySettings;
}

/** A response as stored and replayed: status, the envelope's `data`, and the headers that matter. */
export interface StoredResponse {
  statusCode: number;
  data: unknown;
  headers: Record<string, string>;
}

export interface Outcome extends StoredResponse {
  replayed: boolean;
}

export const keyReused = () =>
  new ServiceError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a changed request.');
export const requestInProgress = () =>
  new ServiceError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry later with the same key.');

/** What the key's record says about a new request. */
export type Claim =
  | { kind: 'claimed'; owner: string }
  /** a stored response; its fingerprint still has to match the request's */
  | { kind: 'completed'; record: IdempotencyRecord };

/**
 * Claims the key for a request with `fingerprint`, or reports the stored response. `fingerprint`
 * is '' when it is not known yet (a multipart body is only known once read): the claim then takes
 * the fingerprint at completion, and a stored response is compared by the caller.
 */
export async function claimKey(scope: KeyScope, fingerprint: string): Promise<Claim> {
  const k = scope.db.kysely;
  const owner = randomBytes(16).toString('hex');
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = scope.now();
    const row = {
      credentialId: scope.credentialId,
      key: scope.key,
      organizationId: scope.organizationId,
      fingerprint,
      owner,
      now,
      leaseUntil: now + scope.settings.leaseMs,
    };
    if (await insertClaim(k, row)) return { kind: 'claimed', owner };
    const record = await findRecord(k, scope.credentialId, scope.key);
    if (!record) continue; // released between our insert and read: try again
    if (record.state === 'completed' && record.expiresAt > now) {
      if (fingerprint !== '' && record.fingerprint !== fingerprint) throw keyReused();
      return { kind: 'completed', record };
    }
    if (record.state === 'in_progress' && (record.leaseUntil ?? 0) > now) {
      if (fingerprint !== '' && record.fingerprint !== '' && record.fingerprint !== fingerprint) throw keyReused();
      throw requestInProgress();
    }
    if (await takeOverClaim(k, row)) return { kind: 'claimed', owner };
  }
  throw requestInProgress();
}

export function storedResponse(record: IdempotencyRecord): StoredResponse {
  return {
    statusCode: record.statusCode ?? 200,
    data: JSON.parse(record.responseBody ?? 'null'),
    headers: JSON.parse(record.responseHeaders ?? '{}') as Record<string, string>,
  };
}

/**
 * Runs `write` in a transaction under a claim already held, storing its response in that same
 * transaction. On any failure the claim is released and the error rethrown.
 */
export async function completeUnderClaim(
  scope: KeyScope,
  owner: string,
  fingerprint: () => string,
  write: (trx: Transaction<Database>) => Promise<StoredResponse>,
): Promise<Outcome> {
  try {
    const response = await scope.db.kysely.transaction().execute(async (trx) => {
      const result = await write(trx);
      const stored = await completeClaim(trx as Kysely<Database>, scope.credentialId, scope.key, owner, {
        fingerprint: fingerprint(),
        statusCode: result.statusCode,
        body: JSON.stringify(result.data),
        headers: JSON.stringify(result.headers),
        expiresAt: scope.now() + scope.settings.replayWindowMs,
      });
      // Our lease ran out and another request took the key over: undo, let the client retry.
      if (!stored) throw requestInProgress();
      return result;
    });
    return { ...response, replayed: false };
  } catch (err) {
    await releaseClaim(scope.db.kysely, scope.credentialId, scope.key, owner).catch(() => {});
    throw err;
  }
}

/** A write whose fingerprint is known before it starts (JSON bodies). */
export async function runIdempotent(
  scope: KeyScope,
  fingerprint: string,
  write: (trx: Transaction<Database>) => Promise<StoredResponse>,
): Promise<Outcome> {
  const claim = await claimKey(scope, fingerprint);
  if (claim.kind === 'completed') return { ...storedResponse(claim.record), replayed: true };
  return completeUnderClaim(scope, claim.owner, () => fingerprint, write);
}

/** The key scope of a request: its credential's keys, on the request's database and clock. */
export function keyScopeOf(
  ctx: { db: Db; now: () => number; writeLeaseMs?: number; actor: { credentialId: string; organizationId: string } },
  key: string,
): KeyScope {
  return {
    db: ctx.db,
    credentialId: ctx.actor.credentialId,
    organizationId: ctx.actor.organizationId,
    key,
    now: ctx.now,
    settings: { leaseMs: ctx.writeLeaseMs ?? 150_000, replayWindowMs: REPLAY_WINDOW_MS },
  };
}
