import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

/**
 * Inserts the person row unless one with this ID exists; the row's name and email are refreshed when they changed.
 * Returns 'renamed' when an existing row changed (answers that show it are then out of date).
 */
export async function upsertActorPerson(
  db: Q,
  person: { id: string; organizationId: string; name: string; email: string },
): Promise<'same' | 'inserted' | 'renamed'> {
  const existing = await db
    .selectFrom('people')
    .select(['name', 'email'])
    .where('organization_id', '=', person.organizationId)
    .where('id', '=', person.id)
    .executeTakeFirst();
  if (!existing) {
    await db
      .insertInto('people')
      .values({ id: person.id, organization_id: person.organizationId, name: person.name, email: person.email })
      .execute();
  } else if (existing.name !== person.name || existing.email !== person.email) {
    await db
      .updateTable('people')
      .set({ name: person.name, email: person.email })
      .where('organization_id', '=', person.organizationId)
      .where('id', '=', person.id)
      .execute();
    return 'renamed';
  }
  return 'same';
}

export async function findCredentialName(
  db: Q,
  organizationId: string,
  credentialId: string,
): Promise<{ name: string; clientId: string } | undefined> {
  const row = await db
    .selectFrom('credentials')
    .select(['name', 'client_id'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', credentialId)
    .executeTakeFirst();
  return row ? { name: row.name, clientId: row.client_id } : undefined;
}

export async function findAdminEmail(db: Q, organizationId: string, adminId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('admins')
    .select(['email'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', adminId)
    .executeTakeFirst();
  return row?.email;
}

export async function findPersonIdByEmailExact(db: Q, organizationId: string, email: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('people')
    .select(['id'])
    .where('organization_id', '=', organizationId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row?.id;
}
