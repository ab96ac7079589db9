// The service's generated secrets (table service_secrets, migration 0002): the cursor signing key
// and the webhook secrets' encryption key live there when they are not configured (see
// domain/service-key.ts). Not organization data, so the table is not in schema.ts's Database.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

/**
 * The secret stored under `name`, created with `generate()` on first use. Concurrent first uses
 * (several nodes starting together) agree: the first insert wins and everyone reads it back.
 */
export async function findOrInsertServiceSecret(db: Kysely<Database>, name: string, generate: () => string, now: number): Promise<string> {
  const k = db.withTables<{ service_secrets: ServiceSecretsTable }>();
  const existing = await k.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (existing) return existing.value;
  await k
    .insertInto('service_secrets')
    .values({ name, value: generate(), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await k.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
