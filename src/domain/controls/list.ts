// GET /v1/controls: the organization's controls with their computed status. With `frameworkIds`,
// the list keeps the controls mapped to any of those frameworks and computes status and
// percentage over those frameworks only (PRODUCT.md "Compliance computed from the data"); the
// `status` filter applies to that recomputed status.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { orgResultKey } from '../result-cache.ts';
import { controlCompliance, type ComplianceGraph, type ControlNode, type ControlStatus } from '../compliance/rules.ts';
import {
  listControlRows,
  loadControlLinks,
  loadFrameworkNames,
  loadScopedComplianceGraph,
  type ControlLinks,
  type ControlRow,
  type ControlScope,
  type FunctionGrouping,
} from '../../storage/db/repositories/controls.ts';
import {
  loadPeople,
  loadSubjectEntities,
  loadSubjectPeople,
  type Assignee,
  type Entity,
  type PersonStamp,
} from '../../storage/db/repositories/links.ts';

export type { ControlScope, FunctionGrouping };

export const CONTROL_STATUSES = ['compliant', 'non_compliant', 'not_applicable'] as const satisfies readonly ControlStatus[];
export const CONTROL_OPTIONAL_FIELDS = [
  'mappedFrameworkIds', 'outOfScopeReason', 'markedOutOfScopeBy', 'addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn',
] as const;
export type ControlOptionalField = (typeof CONTROL_OPTIONAL_FIELDS)[number];

export interface Control {
  controlId: string;
  controlCode: string;
  controlName: string;
  controlDomain: string;
  functionGrouping: FunctionGrouping;
  controlScope: ControlScope;
  status: ControlStatus;
  controlCompliancePercentage: number | 'not_applicable';
  assignees: Assignee[];
  entities: Entity[];
  mappedFrameworkIds?: string[];
  outOfScopeReason?: string;
  markedOutOfScopeBy?: PersonStamp;
  addedBy?: PersonStamp;
  addedOn?: number;
  lastModifiedBy?: PersonStamp;
  modifiedOn?: number | null;
}

export interface ListControlsInput {
  status?: ControlStatus[];
  frameworkIds?: string[];
  entityIds?: string[];
  assigneeEmails?: string[];
  domains?: string[];
  functionGroupings?: FunctionGrouping[];
  controlScope?: ControlScope[];
  fields?: ControlOptionalField[];
}

export async function listControls({ ctx, input }: { ctx: Context; input: ListControlsInput }): Promise<Control[]> {
  authorize(ctx.actor, 'control', 'read');
  if (!ctx.cache) return compute(ctx, input);
  const key = orgResultKey(ctx.actor.organizationId, ctx.actor.dataVersion, 'controls.list', { ...input });
  return ctx.cache.getOrCompute(key, () => compute(ctx, input));
}

/** The rule's view of one control: its scope, frameworks and mapped artifacts. */
export function controlNode(row: Pick<ControlRow, 'id' | 'scope'>, links: ControlLinks): ControlNode {
  return {
    id: row.id,
    scope: row.scope,
    frameworkIds: links.frameworks.get(row.id) ?? new Set(),
    artifactKeys: links.artifacts.get(row.id) ?? [],
  };
}

/** Orders by name, then ID, comparing code units, so both engines (and any collation) agree. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The default list fields of a control, with its status computed over `frameworkIds` (or all). */
export function controlListItem(
  row: ControlRow,
  node: ControlNode,
  graph: ComplianceGraph,
  links: { assignees: Map<string, Assignee[]>; entities: Map<string, Entity[]> },
  frameworkIds?: ReadonlySet<string>,
): Control {
  const compliance = controlCompliance(node, graph, frameworkIds);
  return {
    controlId: row.id,
    controlCode: row.code,
    controlName: row.name,
    controlDomain: row.domain,
    functionGrouping: row.functionGrouping,
    controlScope: row.scope,
    status: compliance.status,
    controlCompliancePercentage: compliance.percentage,
    assignees: links.assignees.get(row.id) ?? [],
    entities: links.entities.get(row.id) ?? [],
  };
}

/** Sets `key` only when the value exists: fields without a value are left out of the object. */
export function setPresent<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined): void {
  if (value !== null && value !== undefined) target[key] = value;
}

async function compute(ctx: Context, input: ListControlsInput): Promise<Control[]> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely;
  const fields = new Set(input.fields ?? []);
  const frameworkIds = input.frameworkIds?.length ? input.frameworkIds : undefined;
  const wantsPeople = fields.has('addedBy') || fields.has('lastModifiedBy') || fields.has('markedOutOfScopeBy');
  const [rows, links, graph, assignees, entities, frameworkNames, people] = await Promise.all([
    listControlRows(db, org, {
      frameworkIds,
      entityIds: input.entityIds,
      assigneeEmails: input.assigneeEmails,
      domains: input.domains,
      functionGroupings: input.functionGroupings,
      scopes: input.controlScope,
    }),
    loadControlLinks(db, org),
    // Over all frameworks the rule reads no artifact → framework mapping; over some, only theirs.
    loadScopedComplianceGraph(db, org, frameworkIds ?? 'none'),
    loadSubjectPeople(db, org, 'control', 'assignee'),
    loadSubjectEntities(db, org, 'control'),
    fields.has('mappedFrameworkIds') ? loadFrameworkNames(db, org) : undefined,
    wantsPeople ? loadPeople(db, org) : undefined,
  ]);
  const scope = frameworkIds ? new Set(frameworkIds) : undefined;
  const statuses = input.status?.length ? new Set<string>(input.status) : undefined;
  const stamp = (personId: string | null) => (personId ? people?.get(personId) : undefined);
  const frameworkOrder = (a: string, b: string) =>
    byNameThenId({ name: frameworkNames?.get(a) ?? '', id: a }, { name: frameworkNames?.get(b) ?? '', id: b });

  const kept: Array<{ name: string; id: string; control: Control }> = [];
  for (const row of rows) {
    const node = controlNode(row, links);
    const control = controlListItem(row, node, graph, { assignees, entities }, scope);
    if (statuses && !statuses.has(control.status)) continue;
    if (fields.has('mappedFrameworkIds')) control.mappedFrameworkIds = [...node.frameworkIds].sort(frameworkOrder);
    if (fields.has('outOfScopeReason')) setPresent(control, 'outOfScopeReason', row.outOfScopeReason);
    if (fields.has('markedOutOfScopeBy')) setPresent(control, 'markedOutOfScopeBy', stamp(row.markedOutOfScopeBy));
    if (fields.has('addedBy')) setPresent(control, 'addedBy', stamp(row.addedBy));
    if (fields.has('addedOn')) control.addedOn = row.addedOn;
    if (fields.has('lastModifiedBy')) setPresent(control, 'lastModifiedBy', stamp(row.lastModifiedBy));
    if (fields.has('modifiedOn')) control.modifiedOn = row.modifiedOn;
    kept.push({ name: row.name, id: row.id, control });
  }
  return kept.sort(byNameThenId).map((k) => k.control);
}
