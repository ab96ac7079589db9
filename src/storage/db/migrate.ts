// Runs the migrations. The list is static (not read from a folder) so it works the same from
// source, from the CLI and from tests; a new migration is one new import and one new entry.
import { Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.ts';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002vulnerabilities from './migrations/0002_vulnerability_indexes.ts';
import * as m0002controls from './migrations/0002_controls_indexes.ts';

const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_vulnerability_indexes': m0002vulnerabilities,
  '0002_controls_indexes': m0002controls,
};

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the
  // current schema so several deployments (or test runs) can share one PostgreSQL database.
  const migrationTableSchema =
    db.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0].schema
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema,
    // Migrations of one round share a number and are named after their resource
    // (0002_controls_indexes, 0002_vulnerability_indexes): a database that already ran one of
    // them must still run the others, whatever their alphabetical order.
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
