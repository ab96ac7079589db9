// Tests (automated and cloud, one ID space), their applications, flagged resources and scan
// history. Links shared with other resources (assignees, entities, tickets, risks, mappings) come
// from links.ts.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../schema.ts';
import type { Application } from '../../../../shared/sub-objects.ts';
import { group, hasPerson, mappedToFramework } from '../links.ts';
import { chunked } from '../../id-chunks.ts';
import { nullableMs } from './artifacts.ts';

type Q = Kysely<Database>;

export interface TestRow {
  id: string;
  kind: string;
  name: string;
  /** stored result: ignored, fix_required or passing (the public status is computed) */
  result: string;
  integrationFailing: boolean;
  description: string | null;
  remediation: string | null;
  notes: string | null;
  effortEstimate: string | null;
  ignoreReason: string | null;
  lastScannedOn: number | null;
  addedOn: number;
  modifiedOn: number | null;
  /** the checks the test is made of (`<tool>:<id>`; migration 0022) */
  checks: string[];
}

export interface TestListFilter {
  /** mapped (through a requirement) to any of these frameworks */
  frameworkIds?: string[];
  /** any assignee's email is one of these (case-insensitive) */
  assigneeEmails?: string[];
}

const toTest = (r: Selectable<Database['tests']>): TestRow => ({
  id: r.id,
  kind: r.kind,
  name: r.name,
  result: r.result,
  integrationFailing: Boolean(r.integration_failing),
  description: r.description,
  remediation: r.remediation,
  notes: r.notes,
  effortEstimate: r.effort_estimate,
  ignoreReason: r.ignore_reason,
  lastScannedOn: nullableMs(r.last_scanned_on),
  addedOn: Number(r.added_on),
  modifiedOn: nullableMs(r.modified_on),
  checks: JSON.parse(r.checks) as string[],
});

/** Tests of the organization matching the link filters, ordered by name, then ID. */
export async function listTests(db: Q, organizationId: string, filter: TestListFilter): Promise<TestRow[]> {
  let query = db.selectFrom('tests as t').selectAll('t').where('t.organization_id', '=', organizationId);
  const { frameworkIds, assigneeEmails } = filter;
  if (frameworkIds && frameworkIds.length > 0) {
    query = query.where((eb) => mappedToFramework(eb, 't.id', organizationId, 'test', frameworkIds));
  }
  if (assigneeEmails && assigneeEmails.length > 0) {
    query = query.where((eb) => hasPerson(eb, 't.id', organizationId, 'test', 'assignee', assigneeEmails));
  }
  const rows = await query.orderBy('t.name').orderBy('t.id').execute();
  return rows.map(toTest);
}

export async function findTest(db: Q, organizationId: string, testId: string): Promise<TestRow | undefined> {
  const row = await db
    .selectFrom('tests')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', testId)
    .executeTakeFirst();
  return row && toTest(row);
}

/** The tests that name checks (a check-results import's candidates), with their rows. */
export async function listTestsWithChecks(db: Q, organizationId: string): Promise<TestRow[]> {
  const rows = await db
    .selectFrom('tests')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('checks', '<>', '[]')
    .orderBy('id')
    .execute();
  return rows.map(toTest);
}

/** Tests per statement when reading many tests at once. */
const TEST_CHUNK = 500;

/** Many tests by ID, only within the organization (500 IDs a statement). */
export async function findTests(db: Q, organizationId: string, testIds: readonly string[]): Promise<Map<string, TestRow>> {
  const out = new Map<string, TestRow>();
  for (let i = 0; i < testIds.length; i += TEST_CHUNK) {
    const rows = await db
      .selectFrom('tests')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', 'in', testIds.slice(i, i + TEST_CHUNK))
      .execute();
    for (const row of rows) out.set(row.id, toTest(row));
  }
  return out;
}

/** The applications of every test of the organization (or of the given tests), ordered by name. */
export async function loadTestApplications(db: Q, organizationId: string, testIds?: string[]): Promise<Map<string, Application[]>> {
  let query = db
    .selectFrom('test_applications as ta')
    .innerJoin('applications as a', 'a.id', 'ta.application_id')
    .select(['ta.test_id', 'a.name'])
    .where('ta.organization_id', '=', organizationId);
  if (testIds) query = query.where('ta.test_id', 'in', testIds.length ? testIds : ['']);
  const rows = await query.orderBy('a.name').orderBy('a.id').execute();
  const map = new Map<string, Application[]>();
  for (const r of rows) {
    let list = map.get(r.test_id);
    if (!list) map.set(r.test_id, (list = []));
    list.push({ name: r.name });
  }
  return map;
}

export interface TestResourceRow {
  /** the row's own ID: the subject ID of the resource's assignees and entities */
  id: string;
  resourceId: string;
  name: string;
  status: string;
  lastScannedAt: number | null;
  firstDetected: number | null;
  tags: string[];
  region: string | null;
  service: string | null;
  accountId: string | null;
  environment: string | null;
  link: string | null;
  description: string | null;
  /** the scope of the check-results import that reported it ('' without one); null when pushed */
  importScope: string | null;
}

/** A test's flagged resources whose status is one of `statuses`, ordered by name, then resource ID. */
export async function listTestResources(db: Q, organizationId: string, testId: string, statuses: string[]): Promise<TestResourceRow[]> {
  return (await listTestsResources(db, organizationId, [testId], statuses)).get(testId) ?? [];
}

/** The flagged resources of many tests whose status is one of `statuses`, by test, each ordered by name, then resource ID. */
export async function listTestsResources(
  db: Q,
  organizationId: string,
  testIds: readonly string[],
  statuses: string[],
): Promise<Map<string, TestResourceRow[]>> {
  if (statuses.length === 0) return new Map();
  const rows = await chunked(testIds, (chunk) =>
    db
      .selectFrom('test_resources')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('test_id', 'in', chunk)
      .where('status', 'in', statuses)
      .orderBy('test_id')
      .orderBy('name')
      .orderBy('resource_id')
      .orderBy('id')
      .execute(),
  );
  return group(rows, (r) => r.test_id, toTestResourceRow);
}

/** A stored resource row as the code reads it. */
export function toTestResourceRow(r: Selectable<Database['test_resources']>): TestResourceRow {
  return {
    id: r.id,
    resourceId: r.resource_id,
    name: r.name,
    status: r.status,
    lastScannedAt: nullableMs(r.last_scanned_at),
    firstDetected: nullableMs(r.first_detected),
    tags: JSON.parse(r.tags) as string[],
    region: r.region,
    service: r.service,
    accountId: r.account_id,
    environment: r.environment,
    link: r.link,
    description: r.description,
    importScope: r.import_scope,
  };
}

export interface TestHistoryRow {
  scannedOn: number;
  status: string;
}

/** A test's scan history, oldest first. */
export async function listTestHistory(db: Q, organizationId: string, testId: string): Promise<TestHistoryRow[]> {
  const rows = await db
    .selectFrom('test_history')
    .select(['scanned_on', 'status'])
    .where('organization_id', '=', organizationId)
    .where('test_id', '=', testId)
    .orderBy('scanned_on')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ scannedOn: Number(r.scanned_on), status: r.status }));
}
