import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { findRowBy, listOldestFirst } from '../rows.ts';

type Q = Kysely<Database>;

export interface CredentialRecord {
  id: string;
  organizationId: string;
  name: string;
  clientId: string;
  secretHash: string;
  accessLevel: string;
  region: string;
  createdAt: number;
  accessLevelChangedAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

const toRecord = (row: Database['credentials']): CredentialRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  clientId: row.client_id,
  secretHash: row.secret_hash,
  accessLevel: row.access_level,
  region: row.region,
  createdAt: Number(row.created_at),
  accessLevelChangedAt: Number(row.access_level_changed_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
});

export async function insertCredential(db: Q, c: CredentialRecord): Promise<void> {
  await db
    .insertInto('credentials')
    .values({
      id: c.id,
      organization_id: c.organizationId,
      name: c.name,
      client_id: c.clientId,
      secret_hash: c.secretHash,
      access_level: c.accessLevel,
      region: c.region,
      created_at: c.createdAt,
      access_level_changed_at: c.accessLevelChangedAt,
      revoked_at: c.revokedAt,
      last_used_at: c.lastUsedAt,
    })
    .execute();
}

export async function findCredentialByClientId(db: Q, clientId: string): Promise<CredentialRecord | undefined> {
  const row = await findRowBy(db, 'credentials', 'client_id', clientId);
  return row && toRecord(row);
}

export async function findCredential(db: Q, id: string): Promise<CredentialRecord | undefined> {
  const row = await findRowBy(db, 'credentials', 'id', id);
  return row && toRecord(row);
}

/** Credentials of the organization that are not revoked. */
export async function countActiveCredentials(db: Q, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('credentials')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listCredentials(db: Q, organizationId: string): Promise<CredentialRecord[]> {
  return (await listOldestFirst(db, 'credentials', organizationId)).map(toRecord);
}

export async function revokeCredential(db: Q, id: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('credentials')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function updateCredentialAccessLevel(db: Q, id: string, level: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('credentials')
    // Never earlier than the previous change (a node's clock may lag): the credential's marker in
    // Redis only rises (domain/auth/state-markers.ts), so every change must raise it.
    .set((eb) => ({
      access_level: level,
      access_level_changed_at: eb
        .case()
        .when('access_level_changed_at', '>=', at)
        .then(eb('access_level_changed_at', '+', 1))
        .else(at)
        .end(),
    }))
    .where('id', '=', id)
    .where('access_level', '!=', level)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records use at most once a minute per credential, so a busy credential does not write per request. */
export async function touchCredential(db: Q, id: string, at: number): Promise<void> {
  await db
    .updateTable('credentials')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at - 60_000)]))
    .execute();
}
