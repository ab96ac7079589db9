// Which version of the service migrated this database, and to which migration: every migration
// run (server start, `cds`) records its version and the newest migration it knows. A build that
// finds a migration it does not know (the database was upgraded by a newer version) refuses to
// start and names the version to run instead (storage/db/migrate.ts, docs/operations.md).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_versions')
    .addColumn('version', 'text', (c) => c.primaryKey())
    .addColumn('latest_migration', 'text', (c) => c.notNull())
    .addColumn('migrated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_versions').ifExists().execute();
}
