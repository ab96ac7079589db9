// The keys a program document names records by (issue 25). An apply derives each new record's ID
// from the organization, the kind and the key, and keeps the key here, so an export gives the
// author's keys back and a later apply of the same document addresses the same records. Records
// made another way (the demo, the API) have no row: they export with their ID as their key.
// Requirements get a position: a framework's requirements in the document's order.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A framework's requirements in the author's order (a catalog's order); older rows share 0.
  await db.schema
    .alterTable('requirements')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('program_keys')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('program_keys_pk', ['organization_id', 'kind', 'key'])
    .execute();
  await db.schema
    .createIndex('program_keys_record_idx')
    .on('program_keys')
    .columns(['organization_id', 'kind', 'record_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('program_keys').ifExists().execute();
  await db.schema.alterTable('requirements').dropColumn('position').execute();
}
