// What the last program apply of each organization left, per kind (issue 25: re-applying or planning
// a document that is mostly unchanged costs what changed). A row holds the digest of one kind's
// entries in that apply's document and the organization's data versions right after it: while the
// versions have not moved, that kind's records are exactly what those entries make, so a later
// plan or apply with the same entries need not read, check or diff them
// (src/domain/program/settled-kinds.ts). Any other write moves a data version and so retires them.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('program_digests')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('versions', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('program_digests_pk', ['organization_id', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('program_digests').ifExists().execute();
}
