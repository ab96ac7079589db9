// Records one pushed run of a test (POST /v1/tests/{testId}/results): the test's status,
// lastScannedOn, resources and testHistory follow, with the test's events and the computed control
// and framework events in the same transaction. Answers the test as GET /v1/tests/{testId} does.
//
// The decisions (docs/decisions/program-writes.md, "Test results"):
// - the pushed resources replace the test's resources: a run reports what it checked; a resource
//   reported again (same resourceId) keeps its row, so its assignees and entities stay;
// - a resource's firstDetected is when the test first reported it in the status it has now: kept
//   while its status stays, set to the run's time when it is new or its status changed;
// - a run older than the test's lastScannedOn (a late CI job) only joins testHistory: the newer
//   run's status and resources stand;
// - an ignored test takes no result (400 naming `status`, result-moves.ts);
// - `test.status_changed` when the status the API shows moves; `test.updated` when the resources
//   changed, its `resources` change naming only the resources added, removed or changed
//   (lastScannedOn, testHistory and the resources' lastScannedAt alone record nothing, so an
//   hourly run that finds the same things adds no event; GET shows them);
// - modifiedOn is set when the status or the resources change.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { findTest } from '../../storage/db/repositories/artifacts/tests.ts';
import {
  insertTestHistory,
  listAllTestResources,
  replaceTestResources,
  updateTestRun,
  type StoredTestResource,
} from '../../storage/db/repositories/artifacts/test-writes.ts';
import { testState, testStatus } from '../compliance/rules.ts';
import { changedFields } from '../events/changes.ts';
import { complianceChanges } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { TEST_RESOURCE_STATUSES } from '../../shared/vocabulary.ts';
import { buildTestDetail } from './get.ts';
import { statusAfterResult } from './result-moves.ts';
import type { TestDetail, TestResource } from './schema.ts';
import { RESULT_CLOCK_SKEW_MS, type RecordTestResultBody, type ResultResource } from './write-schema.ts';

export interface RecordTestResultInput {
  testId: string;
  idempotency: IdempotencyInput;
  body: RecordTestResultBody;
}

/** The resources as the pushed run gives them, each with the row it keeps and its firstDetected. */
function nextResources(current: StoredTestResource[], pushed: readonly ResultResource[], scannedAt: number): StoredTestResource[] {
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

export async function recordTestResult({ ctx, input }: { ctx: Context; input: RecordTestResultInput }): Promise<Outcome<TestDetail>> {
  authorize(ctx.actor, 'test', 'write');
  const org = ctx.actor.organizationId;
  const body = input.body;
  const fingerprints = fingerprintSubjects('tests.recordResult', input.testId, input.idempotency.legacySubject).map((s) =>
    jsonFingerprint(s, body),
  );

  const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), fingerprints, async (trx) => {
    // First: the bump locks the organization's row, so the test read next is the one this run
    // changes (a concurrent push waits), and the events' `before` is exact.
    await bumpDataVersions(trx, org, WRITES['tests.recordResult']);
    const row = await findTest(trx, org, input.testId);
    if (!row) throw notFound('Test');

    const now = ctx.now();
    const scannedAt = body.scannedAt ?? now;
    const issues: FieldIssue[] = [];
    if (scannedAt > now + RESULT_CLOCK_SKEW_MS) issues.push({ field: 'scannedAt', message: 'must not be in the future' });
    const seen = new Set<string>();
    for (const [i, r] of (body.resources ?? []).entries()) {
      if (seen.has(r.resourceId)) issues.push({ field: `resources[${i}].resourceId`, message: 'appears more than once in this result' });
      seen.add(r.resourceId);
    }
    if (issues.length > 0) throw validationFailed(issues);

    const current = testStatus(row.result, row.integrationFailing);
    const next = statusAfterResult(current, body.status, row.integrationFailing);
    const latest = row.lastScannedOn === null || scannedAt >= row.lastScannedOn;

    let before: TestDetail | undefined;
    let changedResources = false;
    if (latest) {
      before = await buildTestDetail(trx, org, { testId: row.id, ...ALL_RESOURCES });
      const stored = await listAllTestResources(trx, org, row.id);
      const resources = nextResources(stored, body.resources ?? [], scannedAt);
      const kept = new Set(resources.map((r) => r.id));
      changedResources = !sameResources(stored, resources);
      await replaceTestResources(
        trx,
        org,
        row.id,
        resources,
        stored.filter((r) => !kept.has(r.id)).map((r) => r.id),
      );
      await updateTestRun(trx, org, row.id, {
        result: body.status,
        lastScannedOn: scannedAt,
        modifiedOn: changedResources || next !== current ? now : undefined,
      });
    }
    await insertTestHistory(trx, org, {
      id: randomUUID(),
      testId: row.id,
      scannedOn: scannedAt,
      status: testStatus(body.status, row.integrationFailing),
    });

    const events: NewEvent[] = [];
    if (before) {
      const after = await buildTestDetail(trx, org, { testId: row.id, ...ALL_RESOURCES });
      if (next !== current) {
        events.push({ type: 'test.status_changed', resourceId: row.id, occurredAt: now, data: { before: current, after: next } });
      }
      const { status: _status, ...changes } = changedFields(before, after);
      const resources = resourceChanges(before.resources, after.resources);
      if (resources) changes.resources = resources;
      else delete changes.resources;
      if (changedResources) {
        events.push({ type: 'test.updated', resourceId: row.id, occurredAt: now, data: { changes } });
      }
      if (next !== current) {
        events.push(
          ...(await complianceChanges(trx, org, {
            type: 'test',
            id: row.id,
            before: testState(current),
            after: testState(next),
            cause: { type: 'test.status_changed', resourceId: row.id },
            occurredAt: now,
          })),
        );
      }
      await recordEvents(trx, org, events);
    }
    return { kind: 'updated' as const, resource: await buildTestDetail(trx, org, { testId: row.id }) };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}
