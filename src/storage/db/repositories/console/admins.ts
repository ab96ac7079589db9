import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { findRowBy, listOldestFirst } from '../rows.ts';

type Q = Kysely<Database>;

export interface AdminRecord {
  id: string;
  organizationId: string;
  email: string;
  passwordHash: string;
  createdAt: number;
  lastSignInAt: number | null;
}

const toRecord = (row: Database['admins']): AdminRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  email: row.email,
  passwordHash: row.password_hash,
  createdAt: Number(row.created_at),
  lastSignInAt: row.last_sign_in_at === null ? null : Number(row.last_sign_in_at),
});

export async function insertAdmin(db: Q, a: AdminRecord): Promise<void> {
  await db
    .insertInto('admins')
    .values({
      id: a.id,
      organization_id: a.organizationId,
      email: a.email,
      password_hash: a.passwordHash,
      created_at: a.createdAt,
      last_sign_in_at: a.lastSignInAt,
    })
    .execute();
}

/** `email` must already be normalized (trimmed, lower-case). */
export async function findAdminByEmail(db: Q, email: string): Promise<AdminRecord | undefined> {
  const row = await findRowBy(db, 'admins', 'email', email);
  return row && toRecord(row);
}

export async function findAdmin(db: Q, id: string): Promise<AdminRecord | undefined> {
  const row = await findRowBy(db, 'admins', 'id', id);
  return row && toRecord(row);
}

export async function listAdmins(db: Q, organizationId: string): Promise<AdminRecord[]> {
  return (await listOldestFirst(db, 'admins', organizationId)).map(toRecord);
}

export async function recordAdminSignIn(db: Q, id: string, at: number): Promise<void> {
  await db.updateTable('admins').set({ last_sign_in_at: at }).where('id', '=', id).execute();
}

export async function updateAdminPassword(db: Q, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('admins').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}
