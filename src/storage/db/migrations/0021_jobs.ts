// Bulk work as jobs (issue 36, "Bulk work is a job, not a long request"; docs/decisions/program-writes.md, "Jobs"):
// an import above IMPORT_JOB_THRESHOLD_BYTES, or sent with `Prefer: respond-async`, is answered
// 202 with a row here, and a JobWorker of any node claims it with a lease (like webhook
// deliveries), runs it from its spooled file, and records its result or error. Rows are read for
// 24 hours after they finish, then removed by the periodic clean-up.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    // 'vulnerabilities.import'
    .addColumn('kind', 'text', (c) => c.notNull())
    // queued | running | succeeded | failed
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON: what the job runs on (for an import: format, scope, spool key, sha256)
    .addColumn('input', 'text', (c) => c.notNull())
    // JSON: the answer the synchronous door would give (succeeded), or its error body (failed)
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    // the credential that asked: the job acts as it
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // the claim reads unfinished jobs oldest first; the clean-up reads finished ones by age
  await db.schema.createIndex('jobs_open_idx').on('jobs').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('jobs_finished_idx').on('jobs').columns(['finished_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('jobs').ifExists().execute();
}
