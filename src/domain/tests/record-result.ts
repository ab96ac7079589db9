// Records one pushed run of a test (POST /v1/tests/{testId}/results; its core is ./apply-run.ts): the test's status,
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
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { findTest } from '../../storage/db/repositories/artifacts/tests.ts';
import { applyTestRun } from './apply-run.ts';
import { buildTestDetail } from './get.ts';
import type { TestDetail } from './schema.ts';
import { RESULT_CLOCK_SKEW_MS, type RecordTestResultBody } from './write-schema.ts';

export interface RecordTestResultInput {
  testId: string;
  idempotency: IdempotencyInput;
  body: RecordTestResultBody;
}

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

    await applyTestRun(trx, org, row, { status: body.status, scannedAt, resources: body.resources ?? [] }, now);
    return { kind: 'updated' as const, resource: await buildTestDetail(trx, org, { testId: row.id }) };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}
