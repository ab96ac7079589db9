// The control list: the organization's controls with their computed status. With `frameworkIds`,
// the list keeps the controls mapped to any of those frameworks and computes status and
// percentage over those frameworks only (docs/decisions/resources.md, "The compliance rule"); the
// `status` filter applies to that recomputed status. The controls, their links and the rule's
// inputs come from the data versions' snapshot (snapshot.ts); the other filters select IDs in
// SQL (one statement); the answer is kept with the snapshot, by normalized input.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { cachedResult } from '../result-cache.ts';
import { setPresent } from '../set-present.ts';
import { controlCompliance, type ComplianceGraph, type ControlNode, type ControlStatus } from '../compliance/rules.ts';
import { byNameThenId, complianceGraph, controlsSnapshot, type ControlsSnapshot } from './snapshot.ts';
import {
  listControlIds,
  type ControlRow,
  type ControlScope,
  type FunctionGrouping,
} from '../../storage/db/repositories/compliance/controls.ts';
import { loadPeople, type Assignee, type Entity } from '../../storage/db/repositories/links.ts';
import type { Control } from './schema.ts';

export type { ControlScope, FunctionGrouping };

export const CONTROL_OPTIONAL_FIELDS = [
  'mappedFrameworkIds',
  'outOfScopeReason',
  'markedOutOfScopeBy',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const;
export type ControlOptionalField = (typeof CONTROL_OPTIONAL_FIELDS)[number];

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
  return cachedResult(ctx, 'controls.list', input, async () => compute(ctx, await controlsSnapshot(ctx), input));
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

function mappedToAny(node: ControlNode, frameworkIds: ReadonlySet<string>): boolean {
  for (const id of frameworkIds) if (node.frameworkIds.has(id)) return true;
  return false;
}

async function compute(ctx: Context, snapshot: ControlsSnapshot, input: ListControlsInput): Promise<Control[]> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely;
  const fields = new Set(input.fields ?? []);
  const frameworkIds = input.frameworkIds?.length ? input.frameworkIds : undefined;
  const filtered = Boolean(
    input.entityIds?.length ||
      input.assigneeEmails?.length ||
      input.domains?.length ||
      input.functionGroupings?.length ||
      input.controlScope?.length,
  );
  const wantsPeople = fields.has('addedBy') || fields.has('lastModifiedBy') || fields.has('markedOutOfScopeBy');
  const [{ graph, scope }, matching, people] = await Promise.all([
    // Status and percentage over the frameworks asked for: only their artifacts count.
    complianceGraph(ctx, snapshot, frameworkIds),
    filtered
      ? listControlIds(db, org, {
          entityIds: input.entityIds,
          assigneeEmails: input.assigneeEmails,
          domains: input.domains,
          functionGroupings: input.functionGroupings,
          scopes: input.controlScope,
        })
      : undefined,
    wantsPeople ? loadPeople(db, org) : undefined,
  ]);
  const keep = matching && new Set(matching);
  const statuses = input.status?.length ? new Set<string>(input.status) : undefined;
  const stamp = (personId: string | null) => (personId ? people?.get(personId) : undefined);
  const names = snapshot.frameworkNames;
  const frameworkOrder = (a: string, b: string) => byNameThenId({ name: names.get(a) ?? '', id: a }, { name: names.get(b) ?? '', id: b });

  const controls: Control[] = [];
  for (const row of snapshot.rows) {
    if (keep && !keep.has(row.id)) continue;
    const node = snapshot.nodes.get(row.id)!;
    // frameworkIds selects the controls mapped to any of them (through their requirements).
    if (scope && !mappedToAny(node, scope)) continue;
    const control = controlListItem(row, node, graph, snapshot, scope);
    if (statuses && !statuses.has(control.status)) continue;
    if (fields.has('mappedFrameworkIds')) control.mappedFrameworkIds = [...node.frameworkIds].sort(frameworkOrder);
    if (fields.has('outOfScopeReason')) setPresent(control, 'outOfScopeReason', row.outOfScopeReason);
    if (fields.has('markedOutOfScopeBy')) setPresent(control, 'markedOutOfScopeBy', stamp(row.markedOutOfScopeBy));
    if (fields.has('addedBy')) setPresent(control, 'addedBy', stamp(row.addedBy));
    if (fields.has('addedOn')) control.addedOn = row.addedOn;
    if (fields.has('lastModifiedBy')) setPresent(control, 'lastModifiedBy', stamp(row.lastModifiedBy));
    if (fields.has('modifiedOn')) control.modifiedOn = row.modifiedOn;
    controls.push(control);
  }
  return controls;
}
