import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface AdminSessionRecord {
  id: string;
  tokenHash: string;
  adminId: string;
  organizationId: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  ip: string | null;
  userAgent: string | null;
}

const toRecord = (row: Database['admin_sessions']): AdminSessionRecord => ({
  id: row.id,
  tokenHash: row.token_hash,
  adminId: row.admin_id,
  organizationId: row.organization_id,
  createdAt: Number(row.created_at),
  lastSeenAt: Number(row.last_seen_at),
  expiresAt: Number(row.expires_at),
  ip: row.ip,
  userAgent: row.user_agent,
});

export async function insertSession(db: Q, s: AdminSessionRecord): Promise<void> {
  await db
    .insertInto('admin_sessions')
    .values({
      id: s.id,
      token_hash: s.tokenHash,
      admin_id: s.adminId,
      organization_id: s.organizationId,
      created_at: s.createdAt,
      last_seen_at: s.lastSeenAt,
      expires_at: s.expiresAt,
      ip: s.ip,
      user_agent: s.userAgent,
    })
    .execute();
}

export async function findSessionByTokenHash(db: Q, tokenHash: string): Promise<AdminSessionRecord | undefined> {
  const row = await db.selectFrom('admin_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && toRecord(row);
}

export async function touchSession(db: Q, id: string, at: number): Promise<void> {
  await db.updateTable('admin_sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function deleteSession(db: Q, id: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('id', '=', id).execute();
}

/** Every session of one administrator (a password reset signs them out everywhere). */
export async function deleteSessionsOfAdmin(db: Q, adminId: string): Promise<number> {
  const result = await db.deleteFrom('admin_sessions').where('admin_id', '=', adminId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sessions past their absolute end, or idle longer than `idleMs`. */
export async function deleteExpiredSessions(db: Q, now: number, idleMs: number): Promise<number> {
  const result = await db
    .deleteFrom('admin_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
