// The work time makes due (migration 0016; docs/decisions/program-writes.md, "Time"): evidence
// whose `stale_at` has passed while it is `uploaded` or `pending_approval`, and published policies
// whose `next_review_date` has passed. Every look goes through the two partial indexes of 0016
// (their predicates are repeated here as literals so SQLite uses them), so finding due work costs
// an index probe, not a scan. The rule itself (which statuses, the reason) is the domain's
// (domain/time/due.ts).
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { EVIDENCE_DUE_PREDICATE, POLICY_DUE_PREDICATE } from '../../migrations/0016_time_due.ts';

type Q = Kysely<Database>;

/**
 * Sets `stale_at` of the given evidence records from their attachments: the first millisecond
 * after the latest attachment period, or null when the record has no periodic recurrence or no
 * attachment with a period. Called in the transaction of every write that adds attachments or
 * changes a record's recurrence; returns each record's new value.
 */
export async function refreshStaleAt(db: Q, organizationId: string, evidenceIds: readonly string[]): Promise<Map<string, number | null>> {
  const result = new Map<string, number | null>();
  for (let i = 0; i < evidenceIds.length; i += 500) {
    const ids = evidenceIds.slice(i, i + 500);
    await db
      .updateTable('evidence')
      .set({
        stale_at: sql<number | null>`case when recurrence in ('monthly', 'quarterly', 'semi_annually', 'yearly') then (
          select max(a.period_end) + 1 from attachments a
          where a.organization_id = evidence.organization_id and a.evidence_id = evidence.id and a.period_end is not null
        ) else null end`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    const rows = await db
      .selectFrom('evidence')
      .select(['id', 'stale_at'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) result.set(r.id, r.stale_at === null || r.stale_at === undefined ? null : Number(r.stale_at));
  }
  return result;
}

/** The earliest due time of any work not yet done (past or future), or undefined when there is none. */
export async function nextDueAt(db: Q): Promise<number | undefined> {
  const [evidence, policies] = await Promise.all([
    db
      .selectFrom('evidence')
      .select((eb) => eb.fn.min<number | null>('stale_at').as('at'))
      .where('stale_at', 'is not', null)
      .where(EVIDENCE_DUE_PREDICATE)
      .executeTakeFirst(),
    db
      .selectFrom('policies')
      .select((eb) => eb.fn.min<number | null>('next_review_date').as('at'))
      .where('next_review_date', 'is not', null)
      .where(POLICY_DUE_PREDICATE)
      .executeTakeFirst(),
  ]);
  const times = [evidence?.at, policies?.at].filter((t): t is number => t !== null && t !== undefined).map(Number);
  return times.length === 0 ? undefined : Math.min(...times);
}

/** Organizations with work due at `now`, the most overdue first, at most `limit`. */
export async function listDueOrganizations(db: Q, now: number, limit: number): Promise<string[]> {
  const [evidence, policies] = await Promise.all([
    db
      .selectFrom('evidence')
      .select(['organization_id', (eb) => eb.fn.min<number>('stale_at').as('at')])
      .where('stale_at', '<=', now)
      .where(EVIDENCE_DUE_PREDICATE)
      .groupBy('organization_id')
      .orderBy('at')
      .limit(limit)
      .execute(),
    db
      .selectFrom('policies')
      .select(['organization_id', (eb) => eb.fn.min<number>('next_review_date').as('at')])
      .where('next_review_date', '<=', now)
      .where(POLICY_DUE_PREDICATE)
      .groupBy('organization_id')
      .orderBy('at')
      .limit(limit)
      .execute(),
  ]);
  const at = new Map<string, number>();
  for (const r of [...evidence, ...policies]) at.set(r.organization_id, Math.min(at.get(r.organization_id) ?? Infinity, Number(r.at)));
  return [...at.entries()]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id]) => id);
}

/**
 * The claim of an organization's due work: its row, locked until the transaction ends. On
 * PostgreSQL with SKIP LOCKED, so a worker never waits for another node's worker (or a write) on
 * the same organization: it skips it and comes back; false then. On SQLite every write
 * transaction already holds the database's write lock (BEGIN IMMEDIATE): always true.
 */
export async function claimOrganization(trx: Q, organizationId: string): Promise<boolean> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return true;
  const row = await trx
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', organizationId)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row !== undefined;
}

export interface DueEvidence {
  id: string;
  status: string;
  isRelevant: boolean;
  recurrence: string | null;
  staleAt: number;
}

export interface DuePolicy {
  id: string;
  status: string;
  isRelevant: boolean;
  nextReviewDate: number;
}

/** The organization's evidence due at `now`, the most overdue first, at most `limit`. */
export async function listDueEvidence(db: Q, organizationId: string, now: number, limit: number): Promise<DueEvidence[]> {
  const rows = await db
    .selectFrom('evidence')
    .select(['id', 'status', 'is_relevant', 'recurrence', 'stale_at'])
    .where('stale_at', '<=', now)
    .where(EVIDENCE_DUE_PREDICATE)
    .where('organization_id', '=', organizationId)
    .orderBy('stale_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    isRelevant: Boolean(r.is_relevant),
    recurrence: r.recurrence,
    staleAt: Number(r.stale_at),
  }));
}

/** The organization's published policies whose review date has passed at `now`, the oldest first, at most `limit`. */
export async function listDuePolicies(db: Q, organizationId: string, now: number, limit: number): Promise<DuePolicy[]> {
  const rows = await db
    .selectFrom('policies')
    .select(['id', 'status', 'is_relevant', 'next_review_date'])
    .where('next_review_date', '<=', now)
    .where(POLICY_DUE_PREDICATE)
    .where('organization_id', '=', organizationId)
    .orderBy('next_review_date')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, status: r.status, isRelevant: Boolean(r.is_relevant), nextReviewDate: Number(r.next_review_date) }));
}

/** Sets the status of the given records of one kind in bulk, stamped with who and when. */
export async function setStatuses(
  db: Q,
  table: 'evidence' | 'policies',
  organizationId: string,
  ids: readonly string[],
  change: { status: string; modifiedOn: number; modifiedBy: string },
): Promise<void> {
  const values = { status: change.status, modified_on: change.modifiedOn, last_modified_by: change.modifiedBy };
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    if (table === 'evidence')
      await db.updateTable('evidence').set(values).where('organization_id', '=', organizationId).where('id', 'in', chunk).execute();
    else await db.updateTable('policies').set(values).where('organization_id', '=', organizationId).where('id', 'in', chunk).execute();
  }
}
