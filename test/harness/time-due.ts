// Due work for the time scheduler, made in bulk straight in the database (test/process/time-nodes,
// bench/staleness.ts): `count` uploaded evidence records whose latest attachment period ends just
// before `dueAt` (so `stale_at` = `dueAt`, set by the service's own refreshStaleAt), spread over
// `controls` controls of one framework so each going stale computes control and framework events.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/storage/db/connect.ts';
import { refreshStaleAt } from '../../src/storage/db/repositories/service/time-due.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import { fixtures } from './fixtures.ts';

export async function seedStaleEvidence(
  db: Db,
  organizationId: string,
  options: { count: number; dueAt: number; controls?: number },
): Promise<{ evidenceIds: string[]; controlIds: string[] }> {
  const org = organizationId;
  const k = db.kysely;
  const f = fixtures(db, org);
  const framework = await f.framework('Due framework');
  const requirement = await f.requirement(framework, 'DUE-1');
  const controlIds: string[] = [];
  for (let c = 0; c < (options.controls ?? 10); c++) controlIds.push(await f.control(`DUE-${c}`, { requirementIds: [requirement] }));
  const evidenceIds = Array.from({ length: options.count }, () => randomUUID());
  const periodEnd = options.dueAt - 1;
  for (let i = 0; i < evidenceIds.length; i += 200) {
    const chunk = evidenceIds.slice(i, i + 200);
    await k
      .insertInto('evidence')
      .values(
        chunk.map((id, j) => ({
          id,
          organization_id: org,
          name: `Due evidence ${i + j}`,
          status: 'uploaded',
          department: null,
          is_relevant: true,
          not_relevant_reason: null,
          next_review_date: null,
          gap_status: 'no_gaps',
          gaps: '[]',
          recurrence: 'monthly',
          effort_estimate: null,
          source: null,
          collection_method: null,
          requirement_text: null,
          revision_requested_by: null,
          revision_requested_on: null,
          rejection_reason: null,
          added_by: null,
          added_on: periodEnd - 86_400_000,
          last_modified_by: null,
          modified_on: null,
        })),
      )
      .execute();
    await k
      .insertInto('attachments')
      .values(
        chunk.map((id) => ({
          id: randomUUID(),
          organization_id: org,
          evidence_id: id,
          display_name: 'report.txt',
          type: 'text',
          url: null,
          note: null,
          blob_key: null,
          size_bytes: null,
          sha256: null,
          upload_id: null,
          evidence_date: periodEnd - 3_600_000,
          period_start: periodEnd - 30 * 86_400_000,
          period_end: periodEnd,
          added_by: null,
          added_on: periodEnd - 3_600_000,
          updated_by: null,
          updated_on: null,
        })),
      )
      .execute();
    await k
      .insertInto('control_artifacts')
      .values(
        chunk.map((id, j) => ({
          organization_id: org,
          control_id: controlIds[(i + j) % controlIds.length],
          artifact_type: 'evidence' as const,
          artifact_id: id,
        })),
      )
      .execute();
    await k
      .insertInto('artifact_requirements')
      .values(
        chunk.map((id) => ({ organization_id: org, artifact_type: 'evidence' as const, artifact_id: id, requirement_id: requirement })),
      )
      .execute();
    await refreshStaleAt(k, org, chunk);
  }
  await bumpDataVersions(k, org, DATA_KINDS);
  return { evidenceIds, controlIds };
}

/** How many of the organization's evidence records are in `status`, and the latest modifiedOn among them. */
export async function countStatus(db: Db, organizationId: string, status: string): Promise<{ n: number; lastModifiedOn: number }> {
  const row = await db.kysely
    .selectFrom('evidence')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max<number | null>('modified_on').as('last')])
    .where('organization_id', '=', organizationId)
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return { n: Number(row.n), lastModifiedOn: Number(row.last ?? 0) };
}

/** Moves the due instant of every evidence record of the organizations to `dueAt` (their attachment periods now end just before it). */
export async function moveDueTime(db: Db, organizationIds: string[], dueAt: number): Promise<void> {
  await db.kysely
    .updateTable('attachments')
    .set({ period_end: dueAt - 1 })
    .where('organization_id', 'in', organizationIds)
    .execute();
  await db.kysely.updateTable('evidence').set({ stale_at: dueAt }).where('organization_id', 'in', organizationIds).execute();
}
