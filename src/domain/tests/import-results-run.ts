// A checker's report as the runs of the tests that name its checks (issue 38; docs/check-results.md):
// the results are read whole first (a refused file writes nothing), then, in one transaction with
// the organization locked, each test naming a check the report has results for takes the report as
// its run through the core a pushed result uses (./apply-run.ts): its resources are the resources
// its checks' results name (one per resource, failing when any of its checks fails there), its
// status `fix_required` when one of its resources fails, else `passing`. A test the report changes
// nothing of is not written; the organization's data versions move only when a test was. The same
// file again, with no test changed since its import, is answered from that import's record without
// being read (test_result_imports): the unchanged re-import costs its spooling, not its parsing.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import { validationFailed } from '../../shared/errors.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { bumpDataVersions, lockOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { listTestsWithChecks } from '../../storage/db/repositories/artifacts/tests.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { findLastTestResultImport, saveLastTestResultImport } from '../../storage/db/repositories/artifacts/test-result-imports.ts';
import type { ScanBytes } from '../vulnerabilities/scan-format.ts';
import { applyTestRun } from './apply-run.ts';
import type { CheckFormat, CheckResult, CheckReportSummary } from './check-result.ts';
import { MAX_UNMATCHED_LISTED, type TestResultsImport } from './import-results-schema.ts';
import { TEST_RESOURCES_MAX } from './program-schema.ts';
import { RESULT_CLOCK_SKEW_MS, type ResultResource } from './write-schema.ts';

/** The report as read: its results by check, and what it says of itself. */
export interface ReadReport {
  summary: CheckReportSummary;
  byCheck: Map<string, CheckResult[]>;
}

/** Reads the whole report; throws the parser's `validation_failed` at the first problem. */
export async function readReport(format: CheckFormat, bytes: ScanBytes): Promise<ReadReport> {
  const byCheck = new Map<string, CheckResult[]>();
  const results = format.parse(bytes);
  for (;;) {
    const step = await results.next();
    if (step.done) return { summary: step.value, byCheck };
    let list = byCheck.get(step.value.check);
    if (!list) byCheck.set(step.value.check, (list = []));
    list.push(step.value);
  }
}

const RANK = { pass: 0, muted: 1, fail: 2 } as const;
const STATUS = { pass: 'passing', muted: 'ignored', fail: 'fix_required' } as const;

/** A resource's ID and name in the import's scope: a resource named only within it (withinScope) takes the scope's name first. */
function placed(r: CheckResult, scope: string | null): CheckResult {
  if (!r.withinScope || !scope) return r;
  return { ...r, resourceId: `${scope}/${r.resourceId}`.slice(0, 255), name: `${r.name} on ${scope}`.slice(0, 255) };
}

/** The test's resources from its checks' results: one per resource, its worst verdict, its messages. */
function resourcesOf(testId: string, results: readonly CheckResult[], scope: string | null): ResultResource[] {
  const byId = new Map<string, { first: CheckResult; verdict: CheckResult['verdict']; lines: string[] }>();
  for (const found of results) {
    const r = placed(found, scope);
    const was = byId.get(r.resourceId);
    const line = r.message ? `${r.check}: ${r.message}` : undefined;
    if (!was) byId.set(r.resourceId, { first: r, verdict: r.verdict, lines: line ? [line] : [] });
    else {
      if (RANK[r.verdict] > RANK[was.verdict]) was.verdict = r.verdict;
      if (line && !was.lines.includes(line)) was.lines.push(line);
    }
  }
  if (byId.size > TEST_RESOURCES_MAX)
    throw validationFailed([
      { field: 'file', message: `reports ${byId.size} resources for test ${testId}; a test holds at most ${TEST_RESOURCES_MAX}` },
    ]);
  return [...byId.values()].map(({ first, verdict, lines }) => {
    const resource: ResultResource = { resourceId: first.resourceId, name: first.name, status: STATUS[verdict] };
    if (first.region) resource.region = first.region;
    if (first.service) resource.service = first.service;
    if (first.accountID) resource.accountID = first.accountID;
    const description = lines.sort().join('\n');
    if (description) resource.description = description.length > 2000 ? `${description.slice(0, 1999)}…` : description;
    return resource;
  });
}

/** The report's time for a test: the latest of its results' times, unless it is in the future (then none). */
function timeOf(results: readonly CheckResult[], now: number): number | undefined {
  let latest: number | undefined;
  for (const r of results) if (r.time !== undefined && (latest === undefined || r.time > latest)) latest = r.time;
  return latest !== undefined && latest <= now + RESULT_CLOCK_SKEW_MS ? latest : undefined;
}

/** The file of an import: its format, the request's scope, its SHA-256, and how to read it. */
export interface ReportSource {
  format: CheckFormat;
  requestScope?: string;
  sha256: string;
  read(): Promise<ReadReport>;
}

/**
 * The answer of the last import of this format and request scope, as this one's, when it was this
 * very file and no test has changed since (the organization's tests data version unmoved): every
 * test it updated is now unchanged. Undefined otherwise.
 */
export async function unchangedSinceLast(db: Kysely<Database>, org: string, source: ReportSource): Promise<TestResultsImport | undefined> {
  const [last, state] = await Promise.all([
    findLastTestResultImport(db, org, source.format.name, source.requestScope ?? ''),
    findOrganizationState(db, org),
  ]);
  if (!last || !state || last.sha256 !== source.sha256 || last.testsVersion !== state.dataVersions.tests) return undefined;
  const answer = JSON.parse(last.answer) as TestResultsImport;
  return { ...answer, tests: { ...answer.tests, updated: 0, unchanged: answer.tests.unchanged + answer.tests.updated }, testIds: [] };
}

/**
 * Imports the report in `trx`: answered from the last import when it is the same file and nothing
 * changed since, else read (unless `report` was read already, outside the transaction) and
 * applied, and recorded as the last import of its format and scope.
 */
export async function importReport(
  ctx: Context,
  trx: Kysely<Database>,
  source: ReportSource,
  report?: ReadReport,
): Promise<{ result: TestResultsImport; changed: boolean }> {
  const org = ctx.actor.organizationId;
  // First: the tests read next are the ones this import changes (a concurrent push waits).
  await lockOrganization(trx, org);
  const same = await unchangedSinceLast(trx, org, source);
  if (same) return { result: same, changed: false };
  const read = report ?? (await source.read());
  const applied = await applyReport(ctx, trx, read, source.requestScope ?? read.summary.scope ?? null);
  const state = await findOrganizationState(trx, org);
  await saveLastTestResultImport(trx, org, {
    format: source.format.name,
    scope: source.requestScope ?? '',
    at: ctx.now(),
    sha256: source.sha256,
    testsVersion: state?.dataVersions.tests ?? 0,
    answer: JSON.stringify(applied.result),
  });
  return applied;
}

/**
 * Applies a report read whole to the tests naming its checks, in `trx` (the organization locked). Returns the answer and
 * whether anything was written (the caller announces the change once committed).
 */
export async function applyReport(
  ctx: Context,
  trx: Kysely<Database>,
  report: ReadReport,
  scope: string | null,
): Promise<{ result: TestResultsImport; changed: boolean }> {
  const org = ctx.actor.organizationId;
  const now = ctx.now();
  const tests = await listTestsWithChecks(trx, org);
  const named = new Set(tests.flatMap((t) => t.checks));
  const result: TestResultsImport = {
    format: report.summary.format,
    scope,
    results: report.summary.results,
    matched: 0,
    tests: { updated: 0, unchanged: 0, older: 0, ignored: 0 },
    testIds: [],
    unmatched: { results: 0, checks: 0, list: [] },
  };
  for (const [check, results] of [...report.byCheck].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (named.has(check)) result.matched += results.length;
    else {
      result.unmatched.results += results.length;
      result.unmatched.checks += 1;
      if (result.unmatched.list.length < MAX_UNMATCHED_LISTED) result.unmatched.list.push({ check, results: results.length });
    }
  }
  for (const row of tests) {
    const results = row.checks.flatMap((c) => report.byCheck.get(c) ?? []);
    if (results.length === 0) continue;
    if (row.result === 'ignored') {
      result.tests.ignored += 1;
      continue;
    }
    const run = { scannedAt: timeOf(results, now), resources: resourcesOf(row.id, results, scope), importScope: scope ?? '' };
    const effect = await applyTestRun(trx, org, row, run, now);
    if (effect.kind === 'applied') {
      result.tests.updated += 1;
      result.testIds.push(row.id);
    } else result.tests[effect.kind] += 1;
  }
  const changed = result.tests.updated > 0;
  if (changed) await bumpDataVersions(trx, org, WRITES['tests.importResults']);
  return { result, changed };
}
