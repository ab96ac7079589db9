// Indexes that keep every page of GET /v1/vulnerabilities as cheap as the first, and the table
// that holds the service's generated secrets (the vulnerability cursor's signing key when
// CURSOR_SECRET is not configured).
//
// The list is ordered by first_seen descending, then by the public ID (source, finding_key)
// ascending. Two indexes carry exactly that order after their equality columns, so a page is an
// index range scan from the cursor position that stops after `count + 1` entries:
//   vulnerabilities_page_idx   (organization_id, first_seen desc, source, finding_key, fix_available)
//       pages without a status/severity filter
//   vulnerabilities_triage_idx (organization_id, status, severity, first_seen desc, source, finding_key, fix_available)
//       pages filtered by status and/or severity: one range per (status, severity) pair, merged
// Every filter column is in both indexes, so `source` and `fixAvailable` are checked inside the
// index and totalCount is an index-only count (a count with fixAvailable took 0.55 s at a million
// findings when it had to visit the table).
// The 0001 index (organization_id, first_seen, id) ordered ties by the surrogate ID, which the
// list no longer uses; it is dropped so a million-row table does not maintain a dead index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('vulnerabilities_page_idx')
    .on('vulnerabilities')
    .columns(['organization_id', 'first_seen desc', 'source', 'finding_key', 'fix_available'])
    .execute();
  await db.schema
    .createIndex('vulnerabilities_triage_idx')
    .on('vulnerabilities')
    .columns(['organization_id', 'status', 'severity', 'first_seen desc', 'source', 'finding_key', 'fix_available'])
    .execute();
  await db.schema.dropIndex('vulnerabilities_organization_id_first_seen_id_idx').ifExists().execute();

  // Secrets the service generates for itself, shared by every node on the same database.
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_secrets').ifExists().execute();
  await db.schema.dropIndex('vulnerabilities_triage_idx').ifExists().execute();
  await db.schema.dropIndex('vulnerabilities_page_idx').ifExists().execute();
  await db.schema
    .createIndex('vulnerabilities_organization_id_first_seen_id_idx')
    .on('vulnerabilities')
    .columns(['organization_id', 'first_seen', 'id'])
    .execute();
}
