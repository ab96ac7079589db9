// Time moves statuses (issue 26; docs/decisions/program-writes.md, "Time"; docs/program-moves.md):
// - an evidence record whose latest attachment period has ended without a new upload goes from
//   `uploaded` or `pending_approval` to `needs_attention` (stale);
// - a `published` policy whose `nextReviewDate` has passed goes to `needs_review`.
// Every other status is left as it is: a record a person already flagged or is reworking
// (`needs_revision`, `draft`, `needs_review`, `needs_attention`…) keeps the person's status. A
// record that is not relevant moves all the same (its status tells the truth about its data), and
// since the compliance rule does not count it, no control or framework event follows.
//
// An organization's due work is done in one transaction that holds the organization's row (the
// claim: repositories/service/time-due.ts, claimOrganization), moves the statuses stamped by the service,
// records the records' events with the computed control and framework events, and bumps the data
// versions under WRITES['time.due']; then every node is told (announceOrganizationChange). The
// statuses are re-read under the claim, so work another node did first is not done twice.
import type { Kysely } from 'kysely';
import type { BaseContext } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { MarkerBoard } from '../../storage/ratelimit/store.ts';
import { attachmentPeriod } from '../../shared/vocabulary.ts';
import { evidenceState, policyState } from '../compliance/rules.ts';
import { complianceChangesOfMany, type ArtifactChange } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import {
  claimOrganization,
  listDueEvidence,
  listDuePolicies,
  refreshStaleAt,
  setStatuses,
} from '../../storage/db/repositories/service/time-due.ts';

/** The statuses time moves, and where to (the partial indexes of migration 0016 repeat the `from` lists). */
export const TIME_MOVES = {
  evidence: { from: ['uploaded', 'pending_approval'], to: 'needs_attention' },
  policy: { from: ['published'], to: 'needs_review' },
} as const;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Why a stale evidence record is `needs_attention`: `statusReason` of GET /v1/evidence/{evidenceId}.
 * `staleAt` is the first millisecond after the latest attachment period.
 */
export function staleEvidenceReason(recurrence: string | null, staleAt: number): string {
  const { periodStart } = attachmentPeriod(recurrence, staleAt - 1);
  const period = periodStart === null ? 'period' : `${recurrence} period ${day(periodStart)} to ${day(staleAt - 1)} (UTC)`;
  return `Stale: the latest upload covers the ${period}, which ended at ${new Date(staleAt).toISOString()}; nothing was uploaded for the current period.`;
}

/** Why a policy is `needs_review`: its review date has passed. */
export function reviewDueReason(nextReviewDate: number): string {
  return `Review due: the next review date ${new Date(nextReviewDate).toISOString()} has passed.`;
}

/** The reason GET shows for an evidence record's status, when time explains it. */
export function evidenceStatusReason(
  row: { status: string; recurrence: string | null; staleAt: number | null },
  now: number,
): string | undefined {
  if (row.status !== TIME_MOVES.evidence.to || row.staleAt === null || row.staleAt > now) return undefined;
  return staleEvidenceReason(row.recurrence, row.staleAt);
}

/** The reason GET shows for a policy's status, when time explains it. */
export function policyStatusReason(row: { status: string; nextReviewDate: number | null }, now: number): string | undefined {
  if (row.status !== TIME_MOVES.policy.to || row.nextReviewDate === null || row.nextReviewDate > now) return undefined;
  return reviewDueReason(row.nextReviewDate);
}

/** What the time worker needs: the database, the clock, where changes are announced to every node. */
export type TimeContext = BaseContext & { markers?: MarkerBoard };

export interface DueResult {
  /** false: another worker (or a write) holds the organization right now; try again soon */
  claimed: boolean;
  evidence: number;
  policies: number;
  /** the batch was full: more of this organization's work may be due */
  more: boolean;
  /** the due times of the records moved (lag: the time they were moved minus these) */
  dueTimes: number[];
}

/** Does (up to `limit` records of each kind of) the organization's work due at `ctx.now()`. */
export async function processDueOrganization(ctx: TimeContext, organizationId: string, limit: number): Promise<DueResult> {
  const org = organizationId;
  const result = await ctx.db.kysely.transaction().execute(async (trx): Promise<DueResult> => {
    const none: DueResult = { claimed: false, evidence: 0, policies: 0, more: false, dueTimes: [] };
    if (!(await claimOrganization(trx, org))) return none;
    const now = ctx.now();
    const [listed, policies] = await Promise.all([listDueEvidence(trx, org, now, limit), listDuePolicies(trx, org, now, limit)]);
    // `stale_at` is recomputed from the attachments first: a write that added a current attachment
    // without refreshing it (or changed the recurrence) must not make a current record stale.
    const staleAt =
      listed.length > 0
        ? await refreshStaleAt(
            trx,
            org,
            listed.map((e) => e.id),
          )
        : new Map<string, number | null>();
    const evidence = listed.filter((e) => {
      const at = staleAt.get(e.id);
      return at !== null && at !== undefined && at <= now;
    });
    if (evidence.length === 0 && policies.length === 0) return { ...none, claimed: true, more: listed.length === limit };
    await bumpDataVersions(trx, org, WRITES['time.due']);
    const service = await actorPersonId(trx, org, { kind: 'service' });
    const stamp = { modifiedOn: now, modifiedBy: service };
    const moves = [
      ['evidence', evidence, TIME_MOVES.evidence.to],
      ['policies', policies, TIME_MOVES.policy.to],
    ] as const;
    for (const [table, rows, to] of moves)
      await setStatuses(
        trx,
        table,
        org,
        rows.map((r) => r.id),
        { status: to, ...stamp },
      );
    const moved = [movedByTime('evidence', evidence, now), movedByTime('policy', policies, now)];
    const events: NewEvent[] = moved.flatMap((m) => m.events);
    const changes = moved.flatMap((m) => m.changes);
    events.push(...(await complianceChangesOfMany(trx as Kysely<Database>, org, changes)));
    await recordEvents(trx, org, events);
    return {
      claimed: true,
      evidence: evidence.length,
      policies: policies.length,
      more: listed.length === limit || policies.length === limit,
      dueTimes: [...evidence.map((e) => e.staleAt), ...policies.map((p) => p.nextReviewDate)],
    };
  });
  // Committed: every node reads the new data versions (never throws: retried in the background).
  if (result.evidence + result.policies > 0) await announceOrganizationChange(ctx, org);
  return result;
}

/**
 * What time moving these records from their status to the kind's `to` records: each one's status
 * event, and what it changes for the compliance rule.
 */
function movedByTime(type: 'evidence' | 'policy', rows: readonly { id: string; status: string; isRelevant: boolean }[], now: number) {
  const state = type === 'evidence' ? evidenceState : policyState;
  const to = TIME_MOVES[type].to;
  return {
    // the rows were listed in one of TIME_MOVES[type].from (listDueEvidence, listDuePolicies): the event's `before`
    events: rows.map(
      (r) => ({ type: `${type}.status_changed`, resourceId: r.id, occurredAt: now, data: { before: r.status, after: to } }) as NewEvent,
    ),
    changes: rows.map(
      (r): ArtifactChange => ({
        type,
        id: r.id,
        before: state(r.isRelevant, r.status),
        after: state(r.isRelevant, to),
        cause: { type: `${type}.status_changed`, resourceId: r.id },
        occurredAt: now,
      }),
    ),
  };
}
