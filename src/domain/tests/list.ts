// The test list: every test (automated and cloud) of the caller's organization that matches the
// filters, ordered by name, then ID. Different filters combine with AND, values of one filter
// with OR. `status` is the computed status; `applications` matches application names
// case-insensitively.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import { countTickets, loadArtifactMappings, loadSubjectEntities, loadSubjectPeople } from '../../storage/db/repositories/links.ts';
import { listTests as listTestRows, loadTestApplications } from '../../storage/db/repositories/artifacts/tests.ts';
import { baseTestFields, statusOf, type TestListField } from './shape.ts';
import type { TestSummary } from './schema.ts';

export interface ListTestsInput {
  status?: string[];
  frameworkIds?: string[];
  assigneeEmails?: string[];
  applications?: string[];
  fields?: TestListField[];
}

export async function listTests({ ctx, input }: { ctx: Context; input: ListTestsInput }): Promise<TestSummary[]> {
  authorize(ctx.actor, 'test', 'read');
  return cachedWithinPlan(ctx, 'tests.list', input, () => compute(ctx, input));
}

async function compute(ctx: Context, input: ListTestsInput): Promise<TestSummary[]> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely;
  const fields = new Set(input.fields ?? []);
  const [rows, applications, assignees, entities, mappings, tickets] = await Promise.all([
    listTestRows(db, org, { frameworkIds: input.frameworkIds, assigneeEmails: input.assigneeEmails }),
    loadTestApplications(db, org),
    loadSubjectPeople(db, org, 'test', 'assignee'),
    loadSubjectEntities(db, org, 'test'),
    fields.has('mappedFrameworkIds') ? loadArtifactMappings(db, org, 'test') : Promise.resolve(undefined),
    fields.has('ticketsCount') ? countTickets(db, org, 'test') : Promise.resolve(undefined),
  ]);
  const statuses = input.status && input.status.length > 0 ? new Set(input.status) : undefined;
  const appNames =
    input.applications && input.applications.length > 0 ? new Set(input.applications.map((a) => a.toLowerCase())) : undefined;

  const out: TestSummary[] = [];
  for (const row of rows) {
    if (statuses && !statuses.has(statusOf(row))) continue;
    const item: TestSummary = baseTestFields(row, { applications, assignees, entities });
    if (appNames && !item.applications.some((a) => appNames.has(a.name.toLowerCase()))) continue;
    // Optional fields appear only when asked for; those without a value are left out.
    if (mappings) item.mappedFrameworkIds = (mappings.frameworks.get(row.id) ?? []).map((f) => f.frameworkId);
    if (fields.has('effortEstimate') && row.effortEstimate !== null) item.effortEstimate = row.effortEstimate;
    if (fields.has('ignoreReason') && row.ignoreReason !== null) item.ignoreReason = row.ignoreReason;
    if (fields.has('addedOn')) item.addedOn = row.addedOn;
    if (fields.has('modifiedOn')) item.modifiedOn = row.modifiedOn;
    if (tickets) item.ticketsCount = tickets.get(row.id) ?? 0;
    out.push(item);
  }
  return out;
}
