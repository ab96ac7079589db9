// Idempotency records: one row per (credential, Idempotency-Key). The row is the claim: inserting
// it decides which request processes the key, on any node, because the primary key is the
// database's to enforce. See migration 0004 for the owner and lease columns, 0006 for the outcome,
// 0009 for the instance whose liveness the claim follows.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { instanceAlive } from './server-instances.ts';

type Q = Kysely<Database>;

/** What a completed write did. */
/** 'accepted': bulk work taken as a job (its stored body is the job; migration 0021) */
export type WriteKind = 'created' | 'updated' | 'accepted';

export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** completed: what the write did */
  outcome: WriteKind | null;
  /** completed: the resource it answered, as JSON */
  responseBody: string | null;
  expiresAt: number;
  leaseUntil: number | null;
}

export interface ClaimRow {
  credentialId: string;
  key: string;
  organizationId: string;
  fingerprint: string;
  owner: string;
  /** the server instance taking the claim (repositories/service/server-instances.ts); none: the lease alone bounds it */
  instanceId?: string | null;
  now: number;
  leaseUntil: number;
  /** an instance with no heartbeat since this time is gone, and its claims abandoned (default: now) */
  aliveSince?: number;
}

/** The columns of a claim just taken: in progress, no response, leased until `leaseUntil`. */
const freshClaim = (claim: ClaimRow) => ({
  organization_id: claim.organizationId,
  fingerprint: claim.fingerprint,
  state: 'in_progress' as const,
  outcome: null,
  status_code: null,
  response_body: null,
  response_headers: null,
  created_at: claim.now,
  expires_at: claim.leaseUntil,
  owner: claim.owner,
  lease_until: claim.leaseUntil,
  instance_id: claim.instanceId ?? null,
});

/** Inserts an in-progress claim; false when a row for the key already exists. */
export async function insertClaim(db: Q, claim: ClaimRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_records')
    .values({ credential_id: claim.credentialId, idempotency_key: claim.key, ...freshClaim(claim) })
    .onConflict((oc) => oc.columns(['credential_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * A record completed before migration 0006, or by a node still running the version before it,
 * has no outcome but the status code it answered: 201 for a creation, 200 for an update.
 */
const legacyOutcome = (statusCode: number | null): WriteKind | null =>
  statusCode === null ? null : Number(statusCode) === 201 ? 'created' : 'updated';

export async function findRecord(db: Q, credentialId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = await db
    .selectFrom('idempotency_records')
    .select(['fingerprint', 'state', 'outcome', 'status_code', 'response_body', 'expires_at', 'lease_until'])
    .where('credential_id', '=', credentialId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return (
    row && {
      fingerprint: row.fingerprint,
      state: row.state,
      outcome: row.outcome ?? legacyOutcome(row.status_code),
      responseBody: row.response_body,
      expiresAt: Number(row.expires_at),
      leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    }
  );
}

/**
 * Takes over a key whose record is dead: a completed response past its replay window, or an
 * in-progress claim abandoned by its process: its instance has no fresh heartbeat (it died, or
 * exited without finishing), or, the outer bound for a live but stuck one, its lease is over. One
 * UPDATE with the condition in its WHERE, so of several requests racing for the same dead record
 * exactly one wins, and a claim whose instance is alive is never taken.
 */
export async function takeOverClaim(db: Q, claim: ClaimRow): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_records')
    .set(freshClaim(claim))
    .where('credential_id', '=', claim.credentialId)
    .where('idempotency_key', '=', claim.key)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'completed'), eb('expires_at', '<=', claim.now)]),
        eb.and([
          eb('state', '=', 'in_progress'),
          eb.or([
            eb('lease_until', '<=', claim.now),
            eb.and([
              eb('instance_id', 'is not', null),
              eb.not(instanceAlive('idempotency_records.instance_id', claim.aliveSince ?? claim.now)),
            ]),
          ]),
        ]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface CompletedWrite {
  fingerprint: string;
  outcome: WriteKind;
  /** the resource, as JSON */
  body: string;
  expiresAt: number;
}

/**
 * Stores the result of a claim's owner. Runs in the write's own transaction, so the write and
 * its stored result commit together; false if the claim is no longer this owner's.
 */
export async function completeClaim(db: Q, credentialId: string, key: string, owner: string, write: CompletedWrite): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_records')
    .set({
      fingerprint: write.fingerprint,
      state: 'completed',
      outcome: write.outcome,
      response_body: write.body,
      expires_at: write.expiresAt,
      lease_until: null,
    })
    .where('credential_id', '=', credentialId)
    .where('idempotency_key', '=', key)
    .where('owner', '=', owner)
    .where('state', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Frees the key after a failed request (only failures' keys are released; 2xx are kept). */
export async function releaseClaim(db: Q, credentialId: string, key: string, owner: string): Promise<void> {
  await db
    .deleteFrom('idempotency_records')
    .where('credential_id', '=', credentialId)
    .where('idempotency_key', '=', key)
    .where('owner', '=', owner)
    .where('state', '=', 'in_progress')
    .execute();
}

/**
 * Frees every key an instance still holds in progress: at shutdown, for the requests that could
 * not finish within the grace period (their transactions, if they ever commit, find the claim gone
 * and roll back). Returns how many were freed.
 */
export async function releaseInstanceClaims(db: Q, instanceId: string): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_records')
    .where('instance_id', '=', instanceId)
    .where('state', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Removes records past their window: completed responses older than the replay window, and
 * claims abandoned by dead processes. Returns how many went.
 */
export async function deleteExpiredIdempotencyRecords(db: Q, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
