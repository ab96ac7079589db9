// One test (automated or cloud) in the get shape, with its flagged
// resources filtered by `resourceStatus` (a union; default fix_required). `affected` is a test
// status with no resource-level equivalent: on its own it selects no resource.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { TestStatus } from '../compliance/rules.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import {
  loadArtifactMappings,
  loadRisks,
  loadSubjectEntities,
  loadSubjectPeople,
  loadTickets,
} from '../../storage/db/repositories/links.ts';
import {
  findTest,
  findTests,
  listTestResources,
  listTestsResources,
  loadTestApplications,
  listTestHistory,
  type TestResourceRow,
} from '../../storage/db/repositories/artifacts/tests.ts';
import { TEST_RESOURCE_STATUSES } from '../../shared/vocabulary.ts';
import { baseTestFields, DEFAULT_TEST_RESOURCE_STATUSES, type TestExpansion, type TestResourceStatus } from './shape.ts';
import type { TestDetail, TestResource } from './schema.ts';

export interface GetTestInput {
  testId: string;
  /** flagged-resource statuses to show (union); default fix_required */
  resourceStatus?: string[];
  fields?: TestExpansion[];
}

export async function getTest({ ctx, input }: { ctx: Context; input: GetTestInput }): Promise<TestDetail> {
  authorize(ctx.actor, 'test', 'read');
  return cachedWithinPlan(ctx, 'tests.get', input, () => buildTestDetail(ctx.db.kysely, ctx.actor.organizationId, input));
}

/** The get shape of one test, read through `db` (a write's transaction reads its own change). */
/** Links of many tests read at once (a bulk caller's), keyed by test ID: they replace this builder's own reads of them. */
export interface PreloadedTestLinks {
  applications: Awaited<ReturnType<typeof loadTestApplications>>;
  assignees: Awaited<ReturnType<typeof loadSubjectPeople>>;
  entities: Awaited<ReturnType<typeof loadSubjectEntities>>;
  mappings: Awaited<ReturnType<typeof loadArtifactMappings>>;
  /** the tests' rows and their default flagged resources with those resources' links, when the caller read those too (`whole`) */
  whole?: {
    rows: Awaited<ReturnType<typeof findTests>>;
    resources: Awaited<ReturnType<typeof listTestsResources>>;
    resourcePeople: Awaited<ReturnType<typeof loadSubjectPeople>>;
    resourceEntities: Awaited<ReturnType<typeof loadSubjectEntities>>;
  };
}

/**
 * The links `buildTestDetail` reads, for many tests in one read each. `whole`: also their rows and
 * default flagged resources with the resources' links, so that building each test's default shape
 * reads nothing more (an apply's `test.created` events).
 */
export async function preloadTestLinks(db: Kysely<Database>, org: string, ids: string[], whole = false): Promise<PreloadedTestLinks> {
  const [applications, assignees, entities, mappings, rows, resources] = await Promise.all([
    loadTestApplications(db, org, ids),
    loadSubjectPeople(db, org, 'test', 'assignee', ids),
    loadSubjectEntities(db, org, 'test', ids),
    loadArtifactMappings(db, org, 'test', ids),
    whole ? findTests(db, org, ids) : undefined,
    whole ? listTestsResources(db, org, ids, [...DEFAULT_TEST_RESOURCE_STATUSES]) : undefined,
  ]);
  const links: PreloadedTestLinks = { applications, assignees, entities, mappings };
  if (rows && resources) {
    const resourceIds = [...resources.values()].flatMap((list) => list.map((r) => r.id));
    const [resourcePeople, resourceEntities] = await Promise.all([
      loadSubjectPeople(db, org, 'test_resource', 'assignee', resourceIds),
      loadSubjectEntities(db, org, 'test_resource', resourceIds),
    ]);
    links.whole = { rows, resources, resourcePeople, resourceEntities };
  }
  return links;
}

export async function buildTestDetail(
  db: Kysely<Database>,
  org: string,
  input: GetTestInput,
  preloaded?: PreloadedTestLinks,
): Promise<TestDetail> {
  // what a bulk caller read for the default shape (no resourceStatus asked)
  const whole = input.resourceStatus && input.resourceStatus.length > 0 ? undefined : preloaded?.whole;
  const row = whole ? whole.rows.get(input.testId) : await findTest(db, org, input.testId);
  if (!row) throw notFound('Test');
  const id = [row.id];
  const fields = new Set(input.fields ?? []);
  const requested = input.resourceStatus && input.resourceStatus.length > 0 ? input.resourceStatus : DEFAULT_TEST_RESOURCE_STATUSES;
  // Only statuses a resource can have select anything (`affected` is a test-level status).
  const statuses = requested.filter((s) => (TEST_RESOURCE_STATUSES as readonly string[]).includes(s));

  const [{ applications, assignees, entities, mappings }, resources, tickets, risks, history] = await Promise.all([
    preloaded ?? preloadTestLinks(db, org, id),
    whole ? (whole.resources.get(row.id) ?? []) : listTestResources(db, org, row.id, statuses),
    fields.has('tickets') ? loadTickets(db, org, 'test', id) : Promise.resolve(undefined),
    fields.has('mappedRisks') ? loadRisks(db, org, 'test', id) : Promise.resolve(undefined),
    fields.has('testHistory') ? listTestHistory(db, org, row.id) : Promise.resolve(undefined),
  ]);
  const resourceIds = resources.map((r) => r.id);
  const [resourcePeople, resourceEntities] = whole
    ? [whole.resourcePeople, whole.resourceEntities]
    : await Promise.all([
        loadSubjectPeople(db, org, 'test_resource', 'assignee', resourceIds),
        loadSubjectEntities(db, org, 'test_resource', resourceIds),
      ]);

  const detail: TestDetail = {
    ...baseTestFields(row, { applications, assignees, entities }),
    mappedFrameworks: mappings.frameworks.get(row.id) ?? [],
    mappedControls: mappings.controls.get(row.id) ?? [],
    mappedRequirements: mappings.requirements.get(row.id) ?? [],
    addedOn: row.addedOn,
    modifiedOn: row.modifiedOn,
    resources: resources.map((r) => toResource(r, resourcePeople, resourceEntities)),
  };
  // Fields without a value are left out (modifiedOn is the one nullable field here).
  if (row.checks.length > 0) detail.checks = row.checks;
  if (row.description !== null) detail.description = row.description;
  if (row.remediation !== null) detail.remediation = row.remediation;
  if (row.lastScannedOn !== null) detail.lastScannedOn = row.lastScannedOn;
  if (row.effortEstimate !== null) detail.effortEstimate = row.effortEstimate;
  if (row.notes !== null) detail.notes = row.notes;
  if (row.ignoreReason !== null) detail.ignoreReason = row.ignoreReason;
  if (tickets) detail.tickets = (tickets.get(row.id) ?? []).map((t) => ({ ticketId: t.ticketKey, source: t.source, url: t.url }));
  if (risks) detail.mappedRisks = risks.get(row.id) ?? [];
  if (history) detail.testHistory = history.map((h) => ({ scannedOn: h.scannedOn, status: h.status as TestStatus }));
  return detail;
}

function toResource(
  r: TestResourceRow,
  people: Map<string, { name: string; email: string }[]>,
  entities: Map<string, { entityId: string; entityName: string }[]>,
): TestResource {
  const resource: TestResource = {
    resourceId: r.resourceId,
    name: r.name,
    status: r.status as TestResourceStatus,
    assignees: (people.get(r.id) ?? []).map((p) => ({ name: p.name, email: p.email })),
    tags: r.tags,
    entities: entities.get(r.id) ?? [],
  };
  if (r.lastScannedAt !== null) resource.lastScannedAt = r.lastScannedAt;
  if (r.firstDetected !== null) resource.firstDetected = r.firstDetected;
  if (r.region !== null) resource.region = r.region;
  if (r.service !== null) resource.service = r.service;
  if (r.accountId !== null) resource.accountID = r.accountId;
  if (r.environment !== null) resource.environment = r.environment;
  if (r.link !== null) resource.link = r.link;
  if (r.description !== null) resource.description = r.description;
  return resource;
}
