// The framework list: every framework of the caller's organization with its computed progress.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { cachedResult } from '../result-cache.ts';
import { frameworksProgress } from '../compliance/rules.ts';
import type { Framework } from './schema.ts';
import { complianceGraph, controlsSnapshot } from '../controls/snapshot.ts';
import { listFrameworks as listFrameworkRows } from '../../storage/db/repositories/compliance/frameworks.ts';
import { loadPeople, loadSubjectEntities, type PersonStamp } from '../../storage/db/repositories/links.ts';

export const FRAMEWORK_OPTIONAL_FIELDS = ['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn', 'tscSelections'] as const;
export type FrameworkOptionalField = (typeof FRAMEWORK_OPTIONAL_FIELDS)[number];

export interface ListFrameworksInput {
  entityIds?: string[];
  fields?: FrameworkOptionalField[];
}

export async function listFrameworks({ ctx, input }: { ctx: Context; input: ListFrameworksInput }): Promise<Framework[]> {
  authorize(ctx.actor, 'framework', 'read');
  return cachedResult(ctx, 'frameworks.list', input, () => compute(ctx, input));
}

async function compute(ctx: Context, input: ListFrameworksInput): Promise<Framework[]> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely;
  const fields = new Set(input.fields ?? []);
  const wantsPeople = fields.has('addedBy') || fields.has('lastModifiedBy');
  // The compliance inputs come from the controls snapshot of these data versions, so one load
  // after a write serves both the framework list and the control list.
  const [rows, entities, snapshot, people] = await Promise.all([
    listFrameworkRows(db, org, { entityIds: input.entityIds }),
    loadSubjectEntities(db, org, 'framework'),
    controlsSnapshot(ctx),
    wantsPeople ? loadPeople(db, org) : Promise.resolve(new Map<string, PersonStamp>()),
  ]);
  const { graph } = await complianceGraph(ctx, snapshot, [...snapshot.frameworkNames.keys()]);
  const progress = frameworksProgress(
    rows.map((r) => r.id),
    snapshot.nodes.values(),
    graph,
  );
  return rows.map((row) => {
    const framework: Framework = {
      frameworkId: row.id,
      frameworkName: row.name,
      entities: entities.get(row.id) ?? [],
      nextAuditDate: row.nextAuditDate,
      complianceProgress: progress.get(row.id)!,
    };
    // Optional fields appear only when asked for; a stamp with no person is left out.
    if (fields.has('addedBy') && row.addedBy && people.has(row.addedBy)) framework.addedBy = people.get(row.addedBy);
    if (fields.has('addedOn')) framework.addedOn = row.addedOn;
    if (fields.has('lastModifiedBy') && row.lastModifiedBy && people.has(row.lastModifiedBy)) {
      framework.lastModifiedBy = people.get(row.lastModifiedBy);
    }
    if (fields.has('modifiedOn')) framework.modifiedOn = row.modifiedOn;
    if (fields.has('tscSelections')) framework.tscSelections = row.tscSelections;
    return framework;
  });
}
