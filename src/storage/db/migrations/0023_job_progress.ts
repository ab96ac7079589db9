// A job's progress (issue 36: "a progress bar on a terminal: parsed, written"): what the running job
// has gone through so far, stored by its node every JOB_PROGRESS_MS (src/domain/jobs/progress.ts)
// and read by GET /v1/jobs/{id} on any node. JSON, null until the job reports.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('progress', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('progress').execute();
}
