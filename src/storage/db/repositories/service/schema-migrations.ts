// The migration bookkeeping: Kysely's own table of applied migrations (read here directly, since
// Kysely's Migrator lists only the migrations this build knows) and service_versions (migration
// 0014), which version of the service migrated the database. Not organization data, so neither
// table is in schema.ts's Database.
import { DEFAULT_MIGRATION_TABLE, sql, type Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

interface MigrationTable {
  name: string;
  timestamp: string;
}

interface ServiceVersionsTable {
  version: string;
  latest_migration: string;
  migrated_at: number;
}

export interface AppliedMigration {
  name: string;
  /** ISO 8601 time Kysely recorded */
  appliedAt: string;
}

/** Every migration recorded as applied, oldest first; none when the table does not exist yet (an empty database). */
export async function listAppliedMigrations(db: Kysely<Database>): Promise<AppliedMigration[]> {
  const k = db.withTables<{ [DEFAULT_MIGRATION_TABLE]: MigrationTable }>();
  try {
    const rows = await k.selectFrom(DEFAULT_MIGRATION_TABLE).select(['name', 'timestamp']).orderBy('name').execute();
    return rows.map((r) => ({ name: r.name, appliedAt: r.timestamp }));
  } catch (err) {
    if (missingTable(err)) return [];
    throw err;
  }
}

/** PostgreSQL's undefined_table, SQLite's "no such table" (asking the catalog would see other schemas' tables). */
const missingTable = (err: unknown) =>
  (err as { code?: unknown }).code === '42P01' || /no such table/.test(String((err as Error)?.message));

/** Records that `version` migrated the database up to `latestMigration`. */
export async function recordServiceVersion(db: Kysely<Database>, version: string, latestMigration: string, now: number): Promise<void> {
  await db
    .withTables<{ service_versions: ServiceVersionsTable }>()
    .insertInto('service_versions')
    .values({ version, latest_migration: latestMigration, migrated_at: now })
    .onConflict((oc) => oc.column('version').doUpdateSet({ latest_migration: latestMigration, migrated_at: now }))
    .execute();
}

/** The version that migrated the database furthest (undefined before migration 0014 or when the table is gone). */
export async function newestServiceVersion(db: Kysely<Database>): Promise<{ version: string; latestMigration: string } | undefined> {
  try {
    const row = await db
      .withTables<{ service_versions: ServiceVersionsTable }>()
      .selectFrom('service_versions')
      .select(['version', 'latest_migration'])
      .orderBy('latest_migration', 'desc')
      .orderBy('migrated_at', 'desc')
      .executeTakeFirst();
    return row && { version: row.version, latestMigration: row.latest_migration };
  } catch (err) {
    if (missingTable(err)) return undefined;
    throw err;
  }
}

/** SQLite's own consistency check of the whole file; `ok` or the problems it found. */
export async function sqliteQuickCheck(db: Kysely<Database>): Promise<string> {
  const rows = (await sql<{ quick_check: string }>`pragma quick_check`.execute(db)).rows;
  return rows.map((r) => r.quick_check).join('; ');
}
