// Idempotency records: one row per (credential, Idempotency-Key). The row is the claim: inserting
// it decides which request processes the key, on any node, because the primary key is the
// database's to enforce. See migration 0004 for the owner and lease columns.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

type Q = Kysely<Database>;

export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  statusCode: number | null;
  responseBody: string | null;
  responseHeaders: string | null;
  expiresAt: number;
  leaseUntil: number | null;
}

export interface ClaimRow {
  credentialId: string;
  key: string;
  organizationId: string;
  fingerprint: string;
  owner: string;
  now: number;
  leaseUntil: number;
}

/** The columns of a claim just taken: in progress, no response, leased until `leaseUntil`. */
const freshClaim = (claim: ClaimRow) => ({
  organization_id: claim.organizationId,
  fingerprint: claim.fingerprint,
  state: 'in_progress' as const,
  status_code: null,
  response_body: null,
  response_headers: null,
  created_at: claim.now,
  expires_at: claim.leaseUntil,
  owner: claim.owner,
  lease_until: claim.leaseUntil,
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

export async function findRecord(db: Q, credentialId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = await db
    .selectFrom('idempotency_records')
    .select(['fingerprint', 'state', 'status_code', 'response_body', 'response_headers', 'expires_at', 'lease_until'])
    .where('credential_id', '=', credentialId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return (
    row && {
      fingerprint: row.fingerprint,
      state: row.state,
      statusCode: row.status_code === null ? null : Number(row.status_code),
      responseBody: row.response_body,
      responseHeaders: row.response_headers,
      expiresAt: Number(row.expires_at),
      leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    }
  );
}

/**
 * Takes over a key whose record is dead: a completed response past its replay window, or an
 * in-progress claim past its lease (its process died). One UPDATE with the condition in its WHERE,
 * so of several requests racing for the same dead record exactly one wins.
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
        eb.and([eb('state', '=', 'in_progress'), eb('lease_until', '<=', claim.now)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface CompletedResponse {
  fingerprint: string;
  statusCode: number;
  body: string;
  headers: string;
  expiresAt: number;
}

/**
 * Stores the response of a claim's owner. Runs in the write's own transaction, so the write and
 * its stored response commit together; false if the claim is no longer this owner's.
 */
export async function completeClaim(db: Q, credentialId: string, key: string, owner: string, response: CompletedResponse): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_records')
    .set({
      fingerprint: response.fingerprint,
      state: 'completed',
      status_code: response.statusCode,
      response_body: response.body,
      response_headers: response.headers,
      expires_at: response.expiresAt,
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
 * Removes records past their window: completed responses older than the replay window, and
 * claims abandoned by dead processes. Returns how many went.
 */
export async function deleteExpiredIdempotencyRecords(db: Q, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
