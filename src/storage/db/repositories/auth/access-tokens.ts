import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import type { DataVersions } from '../../../../shared/data-versions.ts';
import { VERSION_COLUMNS, dataVersionsOf } from '../organizations/organizations.ts';

type Q = Kysely<Database>;

export interface NewAccessToken {
  id: string;
  tokenHash: string;
  credentialId: string;
  organizationId: string;
  accessLevel: string;
  scopes: string;
  region: string;
  issuedAt: number;
  expiresAt: number;
}

/** A token joined with the live state of its credential and organization. */
export interface TokenGrant {
  credentialId: string;
  organizationId: string;
  tokenAccessLevel: string;
  scopes: string;
  tokenRegion: string;
  issuedAt: number;
  expiresAt: number;
  credentialAccessLevel: string;
  accessLevelChangedAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  plan: string;
  dataVersions: DataVersions;
}

export async function insertAccessToken(db: Q, t: NewAccessToken): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({
      id: t.id,
      token_hash: t.tokenHash,
      credential_id: t.credentialId,
      organization_id: t.organizationId,
      access_level: t.accessLevel,
      scopes: t.scopes,
      region: t.region,
      issued_at: t.issuedAt,
      expires_at: t.expiresAt,
    })
    .execute();
}

/** One indexed lookup per request: the token, its credential's state and the org's plan and data versions. */
export async function findGrantByTokenHash(db: Q, tokenHash: string): Promise<TokenGrant | undefined> {
  const row = await db
    .selectFrom('access_tokens as t')
    .innerJoin('credentials as c', 'c.id', 't.credential_id')
    .innerJoin('organizations as o', 'o.id', 't.organization_id')
    .select([
      't.credential_id',
      't.organization_id',
      't.access_level as token_access_level',
      't.scopes',
      't.region as token_region',
      't.issued_at',
      't.expires_at',
      'c.access_level as credential_access_level',
      'c.access_level_changed_at',
      'c.revoked_at',
      'c.last_used_at',
      'o.plan',
      ...VERSION_COLUMNS.map((c) => `o.${c}` as const),
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    credentialId: row.credential_id,
    organizationId: row.organization_id,
    tokenAccessLevel: row.token_access_level,
    scopes: row.scopes,
    tokenRegion: row.token_region,
    issuedAt: Number(row.issued_at),
    expiresAt: Number(row.expires_at),
    credentialAccessLevel: row.credential_access_level,
    accessLevelChangedAt: Number(row.access_level_changed_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    plan: row.plan,
    dataVersions: dataVersionsOf(row),
  };
}

/** Expired tokens are useless to keep; a day's grace keeps `token_stale` answers meaningful. */
export async function deleteExpiredTokens(db: Q, before: number): Promise<number> {
  const result = await db.deleteFrom('access_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
