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
import * as m0014 from './migrations/0014_service_versions.ts';
import * as m0015 from './migrations/0015_vulnerability_import_scope.ts';
import * as m0016 from './migrations/0016_time_due.ts';
import * as m0017 from './migrations/0017_program_keys.ts';
import * as m0018 from './migrations/0018_subject_entity_lookup.ts';
import * as m0019 from './migrations/0019_program_digests.ts';
import * as m0020 from './migrations/0020_vulnerability_set_maintenance.ts';
import * as m0021 from './migrations/0021_jobs.ts';
import * as m0022 from './migrations/0022_test_checks.ts';
import * as m0023 from './migrations/0023_job_progress.ts';
import * as m0024 from './migrations/0024_vulnerability_triggers_by_key.ts';
import { SERVICE_VERSION } from '../../shared/version.ts';
import { listAppliedMigrations, newestServiceVersion, recordServiceVersion } from './repositories/service/schema-migrations.ts';

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
  '0014_service_versions': m0014,
  '0015_vulnerability_import_scope': m0015,
  '0016_time_due': m0016,
  '0017_program_keys': m0017,
  '0018_subject_entity_lookup': m0018,
  '0019_program_digests': m0019,
  '0020_vulnerability_set_maintenance': m0020,
  '0021_jobs': m0021,
  '0022_test_checks': m0022,
  '0023_job_progress': m0023,
  '0024_vulnerability_triggers_by_key': m0024,
};

/** The migrations this build knows, oldest first (upgrade tests walk them all). */
export const MIGRATION_NAMES = Object.keys(migrations).sort();
export type MigrationName = keyof typeof migrations & string;

/** A database migrated by a newer version of the service: this build must not touch it. */
export class NewerDatabaseError extends Error {}

export interface MigrationStatus {
  name: string;
  /** ISO 8601 time it was applied; undefined while pending */
  appliedAt: string | undefined;
}

/** Every migration this build knows, applied or pending, oldest first. */
export async function migrationStatus(db: Db): Promise<MigrationStatus[]> {
  const applied = await refuseNewerDatabase(db);
  return MIGRATION_NAMES.map((name) => ({ name, appliedAt: applied.get(name) }));
}

/**
 * The applied migrations, after checking that this build knows each one. A database a newer
 * version migrated may hold tables and meanings this build would misread or damage, so it stops
 * here, naming the unknown migration and the version that applied it.
 */
async function refuseNewerDatabase(db: Db): Promise<Map<string, string>> {
  const applied = await listAppliedMigrations(db.kysely);
  const unknown = applied.filter((m) => !(m.name in migrations)).map((m) => m.name);
  if (unknown.length > 0) {
    const newer = await newestServiceVersion(db.kysely);
    const run = newer && newer.version !== SERVICE_VERSION ? `version ${newer.version} or later` : 'the newer version that migrated it';
    throw new NewerDatabaseError(
      `The database was migrated by a newer version of the service: it has migration ${unknown.join(', ')}, which this version ` +
        `(${SERVICE_VERSION}) does not know. Run ${run}, or restore a backup taken before that upgrade (docs/operations.md, "Upgrades").`,
    );
  }
  return new Map(applied.map((m) => [m.name, m.appliedAt]));
}

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
  await refuseNewerDatabase(db);
  const result = await settled(db, (migrator) => migrator.migrateToLatest());
  await recordServiceVersion(db.kysely, SERVICE_VERSION, MIGRATION_NAMES[MIGRATION_NAMES.length - 1], Date.now());
  return result;
}

/** Migrates up to and including `name` (upgrade tests: data written under an older schema). */
export async function migrateTo(db: Db, name: MigrationName): Promise<MigrationResultSet> {
  return await settled(db, (migrator) => migrator.migrateTo(name));
}

/** PostgreSQL's invalid_schema_name */
const SCHEMA_GONE = '3F000';

/**
 * Runs a migration and throws its error. Before migrating, Kysely looks for its bookkeeping table
 * in the catalog of every schema of the database; a schema that another deployment (or test run)
 * on the same PostgreSQL drops during that scan fails it with invalid_schema_name, before anything
 * was migrated. That scan is tried again, twice at most.
 */
async function settled(db: Db, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const result = await run(await migratorFor(db));
    if (!result.error) return result;
    const gone = (result.error as { code?: unknown }).code === SCHEMA_GONE && (result.results ?? []).length === 0;
    if (!gone || attempt >= 3) throw result.error;
  }
}
