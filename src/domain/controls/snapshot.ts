// The organization's controls at one data version, with everything the list shows and what the
// compliance rule needs: rows, assignees, entities, each control's frameworks and artifacts, and
// every artifact's state, which the rule derives here, once, from the columns the repository reads
// as stored. Loaded in nine statements whatever the organization's size, plus one per set of
// frameworks asked for (their artifact mappings), and kept in the result cache under the data
// version: every controls list of that version, whatever its filters, then only selects the
// matching IDs and evaluates the rule. A write bumps the data version; the cache drops the
// organization's older entries, this snapshot with them.
import type { Context } from '../context.ts';
import { cachedResult } from '../result-cache.ts';
import {
  artifactKey,
  evidenceState,
  policyState,
  testState,
  testStatus,
  type ArtifactKey,
  type ArtifactState,
  type ComplianceGraph,
  type ControlNode,
} from '../compliance/rules.ts';
import {
  artifactKeyOf,
  loadComplianceRows,
  listControlRows,
  loadFrameworkNames,
  loadFrameworksArtifacts,
  type ComplianceRows,
  type ControlRow,
} from '../../storage/db/repositories/controls.ts';
import { loadSubjectEntities, loadSubjectPeople, type Assignee, type Entity } from '../../storage/db/repositories/links.ts';

export interface ControlsSnapshot {
  /** the data version it was loaded for (its data may be newer, never older) */
  dataVersion: number;
  /** every control, ordered by name, then ID */
  rows: ControlRow[];
  /** the rule's view of each control, by control ID */
  nodes: Map<string, ControlNode>;
  /** every artifact's state under the rule */
  states: Map<ArtifactKey, ArtifactState>;
  /** the shared copies of artifact keys and framework IDs (see loadComplianceRows) */
  shared: Pick<ComplianceRows, 'key' | 'frameworkId'>;
  assignees: Map<string, Assignee[]>;
  entities: Map<string, Entity[]>;
  frameworkNames: Map<string, string>;
}

// The repository spells artifact keys itself (in SQL, for speed); the rule reads them too.
if (artifactKeyOf('policy', 'x') !== artifactKey('policy', 'x')) throw new Error('artifact keys: storage and rule disagree');

/** Orders by name, then ID, comparing code units, so both engines (and any collation) agree. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The snapshot of the caller's organization at the request's data version. */
export function controlsSnapshot(ctx: Context): Promise<ControlsSnapshot> {
  return cachedResult(ctx, 'controls.snapshot', {}, () => load(ctx));
}

async function load(ctx: Context): Promise<ControlsSnapshot> {
  const db = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const [rows, compliance, assignees, entities, frameworkNames] = await Promise.all([
    listControlRows(db, org),
    loadComplianceRows(db, org),
    loadSubjectPeople(db, org, 'control', 'assignee'),
    loadSubjectEntities(db, org, 'control'),
    loadFrameworkNames(db, org),
  ]);
  rows.sort(byNameThenId);
  const nodes = new Map<string, ControlNode>();
  for (const row of rows) {
    nodes.set(row.id, {
      id: row.id,
      scope: row.scope,
      frameworkIds: compliance.controlFrameworks.get(row.id) ?? new Set(),
      artifactKeys: compliance.controlArtifacts.get(row.id) ?? [],
    });
  }
  const shared = { key: compliance.key, frameworkId: compliance.frameworkId };
  return {
    dataVersion: ctx.actor.dataVersion,
    rows,
    nodes,
    states: artifactStates(compliance),
    shared,
    assignees,
    entities,
    frameworkNames,
  };
}

/** Every artifact's state under the rule: one state per group of artifacts with the same stored columns. */
function artifactStates(compliance: ComplianceRows): Map<ArtifactKey, ArtifactState> {
  const states = new Map<ArtifactKey, ArtifactState>();
  const setAll = (keys: string[], state: ArtifactState) => {
    for (const key of keys) states.set(key, state);
  };
  for (const g of compliance.policies) setAll(g.keys, policyState(g.isRelevant, g.status));
  for (const g of compliance.evidence) setAll(g.keys, evidenceState(g.isRelevant, g.status));
  for (const g of compliance.tests) setAll(g.keys, testState(testStatus(g.result, g.integrationFailing)));
  return states;
}

/**
 * The rule's graph for computing over `frameworkIds` (all frameworks when absent), with the set
 * of frameworks to pass to the rule. Over all frameworks the rule reads no artifact → framework
 * mapping; over some, only the mappings to those, loaded once per snapshot and set of existing
 * frameworks (unknown IDs change nothing: no artifact is mapped to them).
 */
export async function complianceGraph(
  ctx: Context,
  snapshot: ControlsSnapshot,
  frameworkIds: string[] | undefined,
): Promise<{ graph: ComplianceGraph; scope?: ReadonlySet<string> }> {
  const artifacts = snapshot.states;
  if (!frameworkIds) return { graph: { artifacts, artifactFrameworks: new Map() } };
  const known = [...new Set(frameworkIds)].filter((id) => snapshot.frameworkNames.has(id)).sort();
  const scope = new Set(known.map((id) => snapshot.shared.frameworkId(id)));
  const graph = cachedResult(
    ctx,
    'controls.graph',
    { frameworkIds: known },
    async (): Promise<ComplianceGraph> => ({
      artifacts,
      artifactFrameworks: await loadFrameworksArtifacts(ctx.db.kysely, ctx.actor.organizationId, known, snapshot.shared),
    }),
  );
  return { graph: await graph, scope };
}
