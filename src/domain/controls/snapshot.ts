// The organization's controls with everything the list shows and what the compliance rule
// needs: rows, assignees, entities, each control's frameworks and artifacts, and every artifact's
// state, which the rule derives here, once, from the columns the repository reads as stored.
//
// It is kept in the result cache in parts, each under the versions of the kinds of data it reads
// (data-versions.ts): the controls and their links (seven statements), and the states of each
// kind of artifact (one statement each). A write reloads only the parts of the kinds it changed:
// after an evidence upload, one statement reads the evidence states again and the rest is reused.
// Every controls list and framework list of the same versions, whatever its filters, then only
// selects the matching IDs and evaluates the rule. The artifact → framework mappings the rule
// reads over some frameworks are loaded once per set of frameworks (complianceGraph).
import type { Context } from '../context.ts';
import { cachedResult } from '../result-cache.ts';
import { artifactKey, type ArtifactKey, type ArtifactState, type ComplianceGraph, type ControlNode } from '../compliance/rules.ts';
import { evidenceRowState, policyRowState, testRowState } from '../compliance/graph.ts';
import {
  artifactKeyOf,
  loadControlLinks,
  loadFrameworksArtifacts,
  loadStatusGroups,
  loadTestGroups,
  type ControlLinks,
} from '../../storage/db/repositories/compliance/compliance-inputs.ts';
import { listControlRows, loadFrameworkNames, type ControlRow } from '../../storage/db/repositories/compliance/controls.ts';
import { loadSubjectEntities, loadSubjectPeople, type Assignee, type Entity } from '../../storage/db/repositories/links.ts';

/** The part that changes only with the controls kind: controls, their links and frameworks. */
interface ControlsStructure {
  /** every control, ordered by name, then ID */
  rows: ControlRow[];
  /** the rule's view of each control, by control ID */
  nodes: Map<string, ControlNode>;
  /** the shared copies of artifact keys and framework IDs (see loadControlLinks) */
  shared: Pick<ControlLinks, 'key' | 'frameworkId'>;
  assignees: Map<string, Assignee[]>;
  entities: Map<string, Entity[]>;
  frameworkNames: Map<string, string>;
}

export interface ControlsSnapshot extends ControlsStructure {
  /** every artifact's state under the rule */
  states: Map<ArtifactKey, ArtifactState>;
}

// The repository spells artifact keys itself (in SQL, for speed); the rule reads them too.
if (artifactKeyOf('policy', 'x') !== artifactKey('policy', 'x')) throw new Error('artifact keys: storage and rule disagree');

/** Orders by name, then ID, comparing code units, so both engines (and any collation) agree. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The snapshot of the caller's organization at the request's data versions. */
export async function controlsSnapshot(ctx: Context): Promise<ControlsSnapshot> {
  const structure = await cachedResult(ctx, 'controls.snapshot.structure', {}, () => loadStructure(ctx));
  const db = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const parts = await Promise.all([
    cachedResult(ctx, 'controls.snapshot.policyStates', {}, async () =>
      statesOf(await loadStatusGroups(db, org, 'policies', structure.shared), policyRowState),
    ),
    cachedResult(ctx, 'controls.snapshot.evidenceStates', {}, async () =>
      statesOf(await loadStatusGroups(db, org, 'evidence', structure.shared), evidenceRowState),
    ),
    cachedResult(ctx, 'controls.snapshot.testStates', {}, async () =>
      statesOf(await loadTestGroups(db, org, structure.shared), testRowState),
    ),
  ]);
  // One map for the rule (its lookups are the hot loop); building it is cheap beside the reads.
  const states = new Map<ArtifactKey, ArtifactState>();
  for (const part of parts) for (const [key, state] of part) states.set(key, state);
  return { ...structure, states };
}

async function loadStructure(ctx: Context): Promise<ControlsStructure> {
  const db = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const [rows, links, assignees, entities, frameworkNames] = await Promise.all([
    listControlRows(db, org),
    loadControlLinks(db, org),
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
      frameworkIds: links.controlFrameworks.get(row.id) ?? new Set(),
      artifactKeys: links.controlArtifacts.get(row.id) ?? [],
    });
  }
  return { rows, nodes, shared: { key: links.key, frameworkId: links.frameworkId }, assignees, entities, frameworkNames };
}

/** Each artifact's state under the rule: one state per group of artifacts with the same stored columns. */
function statesOf<G extends { keys: string[] }>(groups: G[], state: (group: G) => ArtifactState): Array<[ArtifactKey, ArtifactState]> {
  const states: Array<[ArtifactKey, ArtifactState]> = [];
  for (const g of groups) {
    const s = state(g);
    for (const key of g.keys) states.push([key, s]);
  }
  return states;
}

/**
 * The rule's graph for computing over `frameworkIds` (all frameworks when absent), with the set
 * of frameworks to pass to the rule. Over all frameworks the rule reads no artifact → framework
 * mapping; over some, only the mappings to those, loaded once per set of existing frameworks and
 * version of the controls kind (unknown IDs change nothing: no artifact is mapped to them).
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
  const artifactFrameworks = await cachedResult(ctx, 'controls.graph', { frameworkIds: known }, () =>
    loadFrameworksArtifacts(ctx.db.kysely, ctx.actor.organizationId, known, snapshot.shared),
  );
  return { graph: { artifacts, artifactFrameworks }, scope };
}
