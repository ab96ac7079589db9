// Jobs (migration 0021; docs/decisions/program-writes.md, "Jobs"): written by the request that accepts bulk work,
// leased by the JobWorker of any node the way webhook deliveries are (webhook-deliveries.ts), and
// read by GET /v1/jobs/{id} for 24 hours after they end.
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../../connect.ts';
import type { Database, JobsTable } from '../../schema.ts';

type Q = Kysely<Database>;
export type JobRow = Selectable<JobsTable>;

const num = (v: number | null) => (v === null ? null : Number(v));
const toJob = (r: JobRow): JobRow => ({
  ...r,
  attempts: Number(r.attempts),
  created_at: Number(r.created_at),
  started_at: num(r.started_at),
  finished_at: num(r.finished_at),
  lease_until: num(r.lease_until),
});

export async function insertJob(db: Q, row: Insertable<JobsTable>): Promise<JobRow> {
  await db.insertInto('jobs').values(row).execute();
  return toJob((await db.selectFrom('jobs').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow()) as JobRow);
}

/** The organization's job, unless it ended before `finishedAfter` (past its retention). */
export async function findJob(db: Q, organizationId: string, id: string, finishedAfter: number): Promise<JobRow | undefined> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('finished_at', 'is', null), eb('finished_at', '>=', finishedAfter)]))
    .executeTakeFirst();
  return row && toJob(row as JobRow);
}

export interface JobClaim {
  owner: string;
  now: number;
  leaseUntil: number;
  limit: number;
  /** a job that has started this many runs is not claimed again (failAbandonedJobs ends it) */
  maxAttempts: number;
}

/** Unfinished jobs looked at per claim: enough to find other organizations' jobs behind one's backlog. */
const CLAIM_WINDOW = 256;

/**
 * Queued, or running under a lease that ran out (its node died or stalled) with runs left: any
 * worker may take it.
 */
function claimable(eb: ExpressionBuilder<Database, 'jobs'>, now: number, maxAttempts: number) {
  return eb.or([
    eb('status', '=', 'queued'),
    eb.and([eb('status', '=', 'running'), eb('lease_until', '<=', now), eb('attempts', '<', maxAttempts)]),
  ]);
}

/**
 * Ends as failed, with `error` (JSON), the jobs whose lease ran out on their last run: each run
 * stopped its node (a crash, an out-of-memory kill) or stalled it past the lease. Answers how many.
 * Looked for first: the worker calls this on every poll, and an UPDATE that changes nothing is
 * still a write (on SQLite it moves the change stamp that proves cached grants and warm answers).
 */
export async function failAbandonedJobs(db: Q, now: number, maxAttempts: number, error: string): Promise<number> {
  const abandoned = (eb: ExpressionBuilder<Database, 'jobs'>) =>
    eb.and([eb('status', '=', 'running'), eb('lease_until', '<=', now), eb('attempts', '>=', maxAttempts)]);
  const found = await db.selectFrom('jobs').select('id').where(abandoned).limit(1).executeTakeFirst();
  if (!found) return 0;
  const result = await db
    .updateTable('jobs')
    .set({ status: 'failed', error, finished_at: now, lease_owner: null, lease_until: null })
    .where(abandoned)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Leases up to `limit` jobs to `owner`, fairly across organizations: the organization with the
 * fewest jobs running (under live leases, on any node) first, then the oldest job. The lease is
 * taken in one statement that re-checks each row; on PostgreSQL its inner SELECT locks them with
 * FOR UPDATE SKIP LOCKED, so nodes claiming at once take disjoint jobs; on SQLite (one node) the
 * write lock serializes claims.
 */
export async function claimJobs(db: Q, dialect: DialectName, o: JobClaim): Promise<JobRow[]> {
  const held = new Map<string, number>();
  const running = await db
    .selectFrom('jobs')
    .select(['organization_id', sql<number>`count(*)`.as('n')])
    .where('status', '=', 'running')
    .where('lease_until', '>', o.now)
    .groupBy('organization_id')
    .execute();
  for (const r of running) held.set(r.organization_id, Number(r.n));
  const open = await db
    .selectFrom('jobs')
    .select(['id', 'organization_id'])
    .where((eb) => claimable(eb, o.now, o.maxAttempts))
    .orderBy('created_at')
    .orderBy('id')
    .limit(Math.max(CLAIM_WINDOW, o.limit * 16))
    .execute();
  const picked: string[] = [];
  const queues = new Map<string, string[]>();
  for (const row of open) {
    const queue = queues.get(row.organization_id) ?? [];
    queue.push(row.id);
    queues.set(row.organization_id, queue);
  }
  while (picked.length < o.limit && queues.size > 0) {
    // fewest running first; among equals the order of `open` (oldest job first) stands: sort is stable
    const org = [...queues.keys()].sort((a, b) => (held.get(a) ?? 0) - (held.get(b) ?? 0))[0] as string;
    const queue = queues.get(org) as string[];
    picked.push(queue.shift() as string);
    held.set(org, (held.get(org) ?? 0) + 1);
    if (queue.length === 0) queues.delete(org);
  }
  if (picked.length === 0) return [];
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      lease_owner: o.owner,
      lease_until: o.leaseUntil,
      started_at: o.now,
      attempts: eb('attempts', '+', 1),
      progress: null, // a run starts over
    }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('id', 'in', picked)
        .where((inner) => claimable(inner, o.now, o.maxAttempts))
        .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
    )
    // PostgreSQL re-checks a row another node updated meanwhile (EvalPlanQual)
    .where((eb) => claimable(eb, o.now, o.maxAttempts))
    .returningAll()
    .execute();
  return (rows as JobRow[]).map(toJob);
}

/** Extends a lease while its owner still holds it; false when it was lost (another node took the job). */
export async function renewJobLease(db: Q, id: string, owner: string, leaseUntil: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ lease_until: leaseUntil })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Stores a running job's progress (JSON) while `owner` holds it; false when the lease was lost. */
export async function recordJobProgress(db: Q, id: string, owner: string, progress: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ progress })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface JobEnd {
  id: string;
  owner: string;
  at: number;
  status: 'succeeded' | 'failed';
  result: string | null;
  error: string | null;
  /** its last progress (JSON), when it reported any */
  progress?: string | null;
}

/** Records a job's end while `owner` holds it; false when the lease was lost meanwhile. */
export async function finishJob(db: Q, end: JobEnd): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: end.status,
      result: end.result,
      error: end.error,
      finished_at: end.at,
      lease_owner: null,
      lease_until: null,
      ...(end.progress !== undefined ? { progress: end.progress } : {}),
    })
    .where('id', '=', end.id)
    .where('lease_owner', '=', end.owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Gives a lease back (a worker stopping, or a failure of the moment): the job is queued again for
 * any node, and the run does not count against JOB_MAX_ATTEMPTS (it was given back, not lost).
 */
export async function releaseJob(db: Q, id: string, owner: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({ status: 'queued', lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .execute();
}

/** The inputs (JSON) of the jobs not finished: their spooled files must outlive any sweep. */
export async function listOpenJobInputs(db: Q): Promise<string[]> {
  const rows = await db.selectFrom('jobs').select('input').where('finished_at', 'is', null).execute();
  return rows.map((r) => r.input);
}

/** Removes up to `limit` jobs that ended before `before`; answers their inputs (JSON), whose spools may remain. */
export async function deleteFinishedJobsBefore(db: Q, before: number, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('jobs').select(['id', 'input']).where('finished_at', '<', before).limit(limit).execute();
  if (rows.length === 0) return [];
  await db
    .deleteFrom('jobs')
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
  return rows.map((r) => r.input);
}
