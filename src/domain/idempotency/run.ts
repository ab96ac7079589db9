// Idempotent writes, as the spec's rules and docs/decisions/writes-and-uploads.md describe them. A write first claims
// its key by inserting a row (the database decides, so this holds across nodes), then does its work
// and stores its result in the same transaction as the work. Concurrent requests with the key
// answer `idempotency_request_in_progress`; later ones get the stored result replayed, or
// `idempotency_key_reused` when their fingerprint differs. A failure releases the key, so only
// successful writes are ever replayed. What is stored is what the write did (created or updated,
// and the resource), never how it was answered: the caller's protocol turns it into a response.
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
} from '../../storage/db/repositories/service/idempotency.ts';
import { ServiceError } from '../../shared/errors.ts';
import { DEFAULT_CLAIM_LIVENESS_MS } from '../../config.ts';
import type { ServerInstance } from '../instances/server-instance.ts';

/** Idempotency key values the spec allows. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;
/** How long a successful write's result is replayed. */
export const REPLAY_WINDOW_MS = 24 * 3600_000;

export interface IdempotencySettings {
  /** an unfinished claim older than this is abandoned even when its process is alive (stuck) */
  leaseMs: number;
  replayWindowMs: number;
}

/** A write's idempotency key, as a verb's input carries it. */
export interface IdempotencyInput {
  key: string;
  /** the previous version's fingerprint subject for a target (see fingerprintSubjects in fingerprint.ts) */
  legacySubject?: (target: string) => string;
}

export interface KeyScope {
  db: Db;
  credentialId: string;
  organizationId: string;
  key: string;
  now: () => number;
  settings: IdempotencySettings;
  /** the process taking claims: an unfinished claim lives only as long as its instance (domain/instances/server-instance.ts) */
  instance?: ServerInstance;
}

/** What a write did: created or updated `resource`, or accepted it as a job to run later (`resource` is the job). */
export interface WriteResult<T> {
  kind: 'created' | 'updated' | 'accepted';
  resource: T;
}

/** A write's result; `replayed` when it is the stored result of an earlier request with the key. */
export interface Outcome<T> extends WriteResult<T> {
  replayed: boolean;
}

export const keyReused = () =>
  new ServiceError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request; use a new key for a changed request.',
  );
export const requestInProgress = () =>
  new ServiceError(
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still being processed; retry later with the same key.',
  );

/** What the key's record says about a new request. */
export type Claim =
  | { kind: 'claimed'; owner: string }
  /** a stored result; its fingerprint still has to match the request's */
  | { kind: 'completed'; record: IdempotencyRecord };

/**
 * Claims the key for a request whose fingerprint is any of `fingerprints` (the first is the one
 * stored), or reports the stored result. `fingerprints` is empty when they are not known yet (a
 * multipart body is only known once read): the claim then takes the fingerprint at completion, and
 * a stored result is compared by the caller.
 *
 * `withClaim` writes in the claim's own transaction, only when the key is claimed (an upload's
 * journal entry, domain/evidence/upload.ts): on SQLite one turn of the one writer instead of two,
 * each waited for behind whatever holds it (an import's slice, issue 36).
 */
export async function claimKey(
  scope: KeyScope,
  fingerprints: readonly string[],
  withClaim?: (trx: Kysely<Database>) => Promise<void>,
): Promise<Claim> {
  const k = scope.db.kysely;
  /** `write` (the insert or the take-over), and `withClaim` in its transaction when it claimed */
  const claimed = (write: (db: Kysely<Database>) => Promise<boolean>) =>
    withClaim
      ? k.transaction().execute(async (trx) => {
          if (!(await write(trx))) return false;
          await withClaim(trx);
          return true;
        })
      : write(k);
  const owner = randomBytes(16).toString('hex');
  const fingerprint = fingerprints[0] ?? '';
  const differs = (stored: string) => fingerprints.length > 0 && !fingerprints.includes(stored);
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = scope.now();
    const row = {
      credentialId: scope.credentialId,
      key: scope.key,
      organizationId: scope.organizationId,
      fingerprint,
      owner,
      instanceId: scope.instance?.id ?? null,
      now,
      leaseUntil: now + scope.settings.leaseMs,
      // Without an instance of its own (a verb run outside the server), the default window still applies to others' claims.
      aliveSince: now - (scope.instance?.livenessMs ?? DEFAULT_CLAIM_LIVENESS_MS),
    };
    if (await claimed((db) => insertClaim(db, row))) return { kind: 'claimed', owner };
    const record = await findRecord(k, scope.credentialId, scope.key);
    if (!record) continue; // released between our insert and read: try again
    if (record.state === 'completed' && record.expiresAt > now) {
      if (differs(record.fingerprint)) throw keyReused();
      return { kind: 'completed', record };
    }
    // A claim abandoned by its process (gone, or past the lease) is taken over; the database
    // decides in the takeover itself, so a claim whose process is alive is never taken.
    if (await claimed((db) => takeOverClaim(db, row))) return { kind: 'claimed', owner };
    if (record.state === 'in_progress') {
      if (record.fingerprint !== '' && differs(record.fingerprint)) throw keyReused();
      throw requestInProgress();
    }
    // an expired result that another request took over meanwhile: look again
  }
  throw requestInProgress();
}

/** The result a completed record stores, replayed. */
export function storedOutcome<T>(record: IdempotencyRecord): Outcome<T> {
  return { kind: record.outcome ?? 'updated', resource: JSON.parse(record.responseBody ?? 'null') as T, replayed: true };
}

/**
 * Runs `write` in a transaction under a claim already held, storing its result in that same
 * transaction. On any failure the claim is released and the error rethrown.
 */
export async function completeUnderClaim<T>(
  scope: KeyScope,
  owner: string,
  fingerprint: () => string,
  write: (trx: Transaction<Database>) => Promise<WriteResult<T>>,
): Promise<Outcome<T>> {
  try {
    const result = await scope.db.kysely.transaction().execute(async (trx) => {
      const result = await write(trx);
      await storeResult(scope, owner, fingerprint(), trx, result);
      return result;
    });
    return { ...result, replayed: false };
  } catch (err) {
    await releaseClaimOf(scope, owner);
    throw err;
  }
}

/** Stores a write's result under the claim, in the transaction that commits the write. */
async function storeResult<T>(scope: KeyScope, owner: string, fingerprint: string, trx: Kysely<Database>, result: WriteResult<T>) {
  const stored = await completeClaim(trx, scope.credentialId, scope.key, owner, {
    fingerprint,
    outcome: result.kind,
    body: JSON.stringify(result.resource),
    expiresAt: scope.now() + scope.settings.replayWindowMs,
  });
  // Our lease ran out and another request took the key over: undo, let the client retry.
  if (!stored) throw requestInProgress();
}

/**
 * A write that commits in transactions of its own (an import written in slices: ../vulnerabilities/
 * import-slices.ts). It is handed `complete`, which stores its result in the transaction it passes,
 * its last, so the key is bound when the write's last part commits. A failure releases the key and
 * leaves the parts already committed: such a write must converge when run again (an import is a diff).
 */
export async function runIdempotentInParts<T>(
  scope: KeyScope,
  fingerprints: readonly string[],
  write: (complete: (trx: Kysely<Database>, result: WriteResult<T>) => Promise<void>) => Promise<WriteResult<T>>,
): Promise<Outcome<T>> {
  const claim = await claimKey(scope, fingerprints);
  if (claim.kind === 'completed') return storedOutcome(claim.record);
  try {
    const result = await write((trx, result) => storeResult(scope, claim.owner, fingerprints[0], trx, result));
    return { ...result, replayed: false };
  } catch (err) {
    await releaseClaimOf(scope, claim.owner);
    throw err;
  }
}

/**
 * Frees the key after a failed write. When the database refuses (it is what failed), the release is
 * retried with the instance's heartbeats: the process is alive, so its claim would otherwise block
 * retries until the lease ends.
 */
export async function releaseClaimOf(scope: KeyScope, owner: string): Promise<void> {
  const release = () => releaseClaim(scope.db.kysely, scope.credentialId, scope.key, owner);
  await release().catch(() => scope.instance?.retryLater(release));
}

/** A write whose fingerprints are known before it starts (JSON bodies). */
export async function runIdempotent<T>(
  scope: KeyScope,
  fingerprints: readonly string[],
  write: (trx: Transaction<Database>) => Promise<WriteResult<T>>,
): Promise<Outcome<T>> {
  const claim = await claimKey(scope, fingerprints);
  if (claim.kind === 'completed') return storedOutcome(claim.record);
  return completeUnderClaim(scope, claim.owner, () => fingerprints[0], write);
}

/** The key scope of a request: its credential's keys, on the request's database and clock. */
export function keyScopeOf(
  ctx: {
    db: Db;
    now: () => number;
    writeLeaseMs?: number;
    instance?: ServerInstance;
    actor: { credentialId: string; organizationId: string };
  },
  idempotency: IdempotencyInput,
): KeyScope {
  return {
    db: ctx.db,
    credentialId: ctx.actor.credentialId,
    organizationId: ctx.actor.organizationId,
    key: idempotency.key,
    now: ctx.now,
    settings: { leaseMs: ctx.writeLeaseMs ?? 150_000, replayWindowMs: REPLAY_WINDOW_MS },
    instance: ctx.instance,
  };
}
