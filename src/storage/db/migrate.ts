// Runs the migrations. The list is static (not read from a folder) so it works the same from
// source, from the CLI and from tests; a new migration is one new import and one new entry.
import { Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.ts';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002 from './migrations/0002_vulnerabilities.ts';
import * as m0003 from './migrations/0003_controls_indexes.ts';
import * as m0004 from './migrations/0004_writes.ts';
import * as m0005 from './migrations/0005_console.ts';
import * as m0006 from './migrations/0006_idempotency_outcome.ts';
import * as m0007 from './migrations/0007_data_versions.ts';
import * as m0008 from './migrations/0008_vulnerability_counts.ts';
import * as m0009 from './migrations/0009_claim_liveness.ts';
import * as m0010 from './migrations/0010_events_and_webhooks.ts';
import * as m0011 from './migrations/0011_vulnerability_pages_children.ts';
import * as m0012 from './migrations/0012_vulnerability_list_columns.ts';
import * as m0013 from './migrations/0013_webhook_deliveries_by_event.ts';

const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_vulnerabilities': m0002,
  '0003_controls_indexes': m0003,
  '0004_writes': m0004,
  '0005_console': m0005,
  '0006_idempotency_outcome': m0006,
  '0007_data_versions': m0007,
  '0008_vulnerability_counts': m0008,
  '0009_claim_liveness': m0009,
  '0010_events_and_webhooks': m0010,
  '0011_vulnerability_pages_children': m0011,
  '0012_vulnerability_list_columns': m0012,
  '0013_webhook_deliveries_by_event': m0013,
};

/**
 * The migrator of `db`. Kysely looks for its bookkeeping tables in every schema unless told
 * which one; on PostgreSQL the current schema is named so several deployments (or test runs) can
 * share one database.
 */
export async function migratorFor(db: Db): Promise<Migrator> {
  const migrationTableSchema =
    db.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0].schema
      : undefined;
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema,
  });
}

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const result = await (await migratorFor(db)).migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/** Migrates up to and including `name` (upgrade tests: data written under an older schema). */
export async function migrateTo(db: Db, name: keyof typeof migrations & string): Promise<MigrationResultSet> {
  const result = await (await migratorFor(db)).migrateTo(name);
  if (result.error) throw result.error;
  return result;
}
