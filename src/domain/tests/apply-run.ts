// One run of a test applied inside a write's transaction: the core that a pushed result
// (./record-result.ts) and a checker's report (./import-results-run.ts) share. The test's status,
// lastScannedOn, resources and testHistory follow, with `test.status_changed`, `test.updated` and
// the computed control and framework events recorded in the same transaction. The rules are in
// docs/decisions/program-writes.md, "Test results", and docs/check-results.md.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import type { TestRow } from '../../storage/db/repositories/artifacts/tests.ts';
import {
  insertTestHistory,
  listAllTestResources,
  replaceTestResources,
  updateTestRun,
  type StoredTestResource,
} from '../../storage/db/repositories/artifacts/test-writes.ts';
import { testState, testStatus, type TestStatus } from '../compliance/rules.ts';
import { changedFields } from '../events/changes.ts';
import { complianceChanges } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { TEST_RESOURCE_STATUSES } from '../../shared/vocabulary.ts';
import { buildTestDetail } from './get.ts';
import { statusAfterResult, type ResultStatus } from './result-moves.ts';
import type { TestDetail, TestResource } from './schema.ts';
import type { ResultResource } from './write-schema.ts';

export interface TestRun {
  /** the run's outcome; absent: `fix_required` when a resource of the test fails after the run, else `passing` (an import) */
  status?: ResultStatus;
  /** when the run happened; absent: now, and an import that changes nothing writes nothing */
  scannedAt?: number;
  resources: readonly ResultResource[];
  /**
   * An import's scope ('' for none): the run replaces the resources that scope reported and keeps
   * the others, and a run that changes nothing writes nothing. Absent: a pushed result, which
   * replaces every resource and always joins testHistory.
   */
  importScope?: string;
}

/** What a run did to its test: `unchanged` (an import that wrote nothing), `older` (only joined the history), or `applied`. */
export interface RunEffect {
  kind: 'applied' | 'older' | 'unchanged';
  /** the status the API shows after the run */
  status: TestStatus;
}

/** The resources as the run gives them, each with the row it keeps and its firstDetected. */
function nextResources(
  current: StoredTestResource[],
  pushed: readonly ResultResource[],
  scannedAt: number,
  importScope: string | null,
): StoredTestResource[] {
  const byResourceId = new Map(current.map((r) => [r.resourceId, r]));
  return pushed.map((p) => {
    const was = byResourceId.get(p.resourceId);
    const sameStatus = was !== undefined && was.status === p.status && was.firstDetected !== null;
    return {
      id: was?.id ?? randomUUID(),
      resourceId: p.resourceId,
      name: p.name,
      status: p.status,
      lastScannedAt: scannedAt,
      firstDetected: sameStatus ? Math.min(was.firstDetected!, scannedAt) : scannedAt,
      tags: p.tags ?? [],
      region: p.region ?? null,
      service: p.service ?? null,
      accountId: p.accountID ?? null,
      environment: p.environment ?? null,
      link: p.link ?? null,
      description: p.description ?? null,
      importScope,
    };
  });
}

/** A resource's fields apart from its row and scan time: what a run can change that is worth an event. */
const substance = (r: StoredTestResource) => {
  const { id: _id, lastScannedAt: _at, ...rest } = r;
  return rest;
};
const byResourceId = (a: { resourceId: string }, b: { resourceId: string }) =>
  a.resourceId < b.resourceId ? -1 : a.resourceId > b.resourceId ? 1 : 0;

function sameResources(a: StoredTestResource[], b: StoredTestResource[]): boolean {
  if (a.length !== b.length) return false;
  return isDeepStrictEqual([...a].sort(byResourceId).map(substance), [...b].sort(byResourceId).map(substance));
}

/** A resource as GET shows it, without its scan time: what makes it "changed" for an event. */
const shown = (r: TestResource) => {
  const { lastScannedAt: _at, ...rest } = r;
  return rest;
};

/**
 * The `resources` change of test.updated: only the resources added, removed or changed (by
 * resourceId, their scan time aside), before and after, in GET's order; undefined when none. A run
 * of 1,000 resources that changes one names one, not 2,000.
 */
function resourceChanges(before: TestResource[], after: TestResource[]): { before?: TestResource[]; after?: TestResource[] } | undefined {
  const was = new Map(before.map((r) => [r.resourceId, r]));
  const is = new Map(after.map((r) => [r.resourceId, r]));
  const differs = (id: string) => {
    const a = was.get(id);
    const b = is.get(id);
    return !a || !b || !isDeepStrictEqual(shown(a), shown(b));
  };
  const gone = before.filter((r) => differs(r.resourceId));
  const come = after.filter((r) => differs(r.resourceId));
  if (gone.length === 0 && come.length === 0) return undefined;
  const change: { before?: TestResource[]; after?: TestResource[] } = {};
  if (gone.length > 0) change.before = gone;
  if (come.length > 0) change.after = come;
  return change;
}

/** The get shape with every resource, whatever its status: the events name every resource that changed. */
const ALL_RESOURCES = { resourceStatus: [...TEST_RESOURCE_STATUSES] };

/** An import's outcome from the test's resources after it: one failing resource fails the test. */
const outcomeOf = (resources: readonly StoredTestResource[]): ResultStatus =>
  resources.some((r) => r.status === 'fix_required') ? 'fix_required' : 'passing';

/**
 * Applies `run` to the test `row` (read in this transaction, after the organization's row was
 * locked) and records its events. Throws the refusal of statusAfterResult for an ignored test.
 */
export async function applyTestRun(trx: Kysely<Database>, org: string, row: TestRow, run: TestRun, now: number): Promise<RunEffect> {
  const imported = run.importScope !== undefined;
  const current = testStatus(row.result, row.integrationFailing);
  const scannedAt = run.scannedAt ?? now;
  const latest = row.lastScannedOn === null || scannedAt >= row.lastScannedOn;
  if (imported && !latest) return { kind: 'older', status: current };

  const stored = latest ? await listAllTestResources(trx, org, row.id) : [];
  // An import replaces its own scope's resources; a pushed run replaces them all.
  const others = imported ? stored.filter((r) => r.importScope !== run.importScope) : [];
  const replaced = imported ? stored.filter((r) => r.importScope === run.importScope) : stored;
  const resources = latest ? nextResources(replaced, run.resources, scannedAt, imported ? (run.importScope as string) : null) : [];
  const changedResources = latest && !sameResources(replaced, resources);
  const result = run.status ?? outcomeOf([...others, ...resources]);
  const next = statusAfterResult(current, result, row.integrationFailing);
  if (imported && !changedResources && next === current && (run.scannedAt === undefined || run.scannedAt === row.lastScannedOn))
    return { kind: 'unchanged', status: current };

  let before: TestDetail | undefined;
  if (latest) {
    before = await buildTestDetail(trx, org, { testId: row.id, ...ALL_RESOURCES });
    const kept = new Set(resources.map((r) => r.id));
    await replaceTestResources(
      trx,
      org,
      row.id,
      [...others, ...resources],
      replaced.filter((r) => !kept.has(r.id)).map((r) => r.id),
    );
    await updateTestRun(trx, org, row.id, {
      result,
      lastScannedOn: scannedAt,
      modifiedOn: changedResources || next !== current ? now : undefined,
    });
  }
  await insertTestHistory(trx, org, {
    id: randomUUID(),
    testId: row.id,
    scannedOn: scannedAt,
    status: testStatus(result, row.integrationFailing),
  });
  if (before) await recordEvents(trx, org, await runEvents(trx, org, row.id, before, { current, next, changedResources, now }));
  return { kind: latest ? 'applied' : 'older', status: latest ? next : current };
}

/** The run's events: the test's own, then the controls' and frameworks' it moved. */
async function runEvents(
  trx: Kysely<Database>,
  org: string,
  testId: string,
  before: TestDetail,
  run: { current: TestStatus; next: TestStatus; changedResources: boolean; now: number },
): Promise<NewEvent[]> {
  const { current, next, now } = run;
  const events: NewEvent[] = [];
  const after = await buildTestDetail(trx, org, { testId, ...ALL_RESOURCES });
  if (next !== current)
    events.push({ type: 'test.status_changed', resourceId: testId, occurredAt: now, data: { before: current, after: next } });
  const { status: _status, ...changes } = changedFields(before, after);
  const resources = resourceChanges(before.resources, after.resources);
  if (resources) changes.resources = resources;
  else delete changes.resources;
  if (run.changedResources) events.push({ type: 'test.updated', resourceId: testId, occurredAt: now, data: { changes } });
  if (next !== current) {
    events.push(
      ...(await complianceChanges(trx, org, {
        type: 'test',
        id: testId,
        before: testState(current),
        after: testState(next),
        cause: { type: 'test.status_changed', resourceId: testId },
        occurredAt: now,
      })),
    );
  }
  return events;
}
