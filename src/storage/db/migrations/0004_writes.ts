// What the three writes need beyond the initial model.
//
// idempotency_records gains the claim's owner and lease. A request claims its key by inserting the
// row (the primary key makes the database the judge across nodes); `owner` is a random token of
// that request, so only it can complete or release the claim; `lease_until` is when an unfinished
// claim counts as abandoned (its node died), after which a retry may take it over.
//
// pending_uploads is the journal of uploads in flight: a row is written before the first byte goes
// to the blob store and deleted in the transaction that records the attachments. A row that
// outlives its `expires_at` belongs to an upload whose process died; the sweeper deletes its
// blobs (everything under `blob_prefix`) and then the row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_records').addColumn('owner', 'text').execute();
  await db.schema.alterTable('idempotency_records').addColumn('lease_until', 'bigint').execute();

  await db.schema
    .createTable('pending_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('evidence_id', 'text', (c) => c.notNull())
    .addColumn('blob_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_uploads_expires_at_idx').on('pending_uploads').column('expires_at').execute();
  // Replays and the duplicate-key check look findings up by key across sources.
  await db.schema
    .createIndex('vulnerabilities_organization_id_finding_key_idx')
    .on('vulnerabilities')
    .columns(['organization_id', 'finding_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('vulnerabilities_organization_id_finding_key_idx').ifExists().execute();
  await db.schema.dropTable('pending_uploads').ifExists().execute();
  await db.schema.alterTable('idempotency_records').dropColumn('lease_until').execute();
  await db.schema.alterTable('idempotency_records').dropColumn('owner').execute();
}
