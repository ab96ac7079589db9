// The part of the compliance graph a change can reach (compliance-changes.ts, an artifact's state;
// control-scope-changes.ts, a control's scope): the given controls, every control the given
// frameworks count (with its frameworks among them), their artifacts and the frameworks' artifacts,
// and every such artifact's state, read in the write's transaction
// (src/storage/db/repositories/compliance/compliance-scope.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { artifactKey, type ArtifactKey, type ArtifactState, type ControlNode } from '../compliance/rules.ts';
import { artifactFrameworksOf, artifactStates } from '../compliance/graph.ts';
import {
  loadArtifactColumns,
  loadControlFrameworkPairs,
  loadControlsArtifacts,
  loadFrameworkArtifactPairs,
} from '../../storage/db/repositories/compliance/compliance-scope.ts';

export interface Reach {
  /** the controls, by ID, in the order they were first met */
  nodes: Map<string, ControlNode>;
  /** the frameworks each artifact of the frameworks is mapped to */
  artifactFrameworks: Map<ArtifactKey, Set<string>>;
  /** every artifact's state under the rule as the transaction holds it */
  states: Map<ArtifactKey, ArtifactState>;
}

export async function loadReach(
  trx: Kysely<Database>,
  organizationId: string,
  controlIds: readonly string[],
  frameworks: ReadonlySet<string>,
): Promise<Reach> {
  const org = organizationId;
  const nodes = new Map<string, ControlNode>();
  const nodeOf = (id: string) => {
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { id, scope: 'in_scope', frameworkIds: new Set(), artifactKeys: [] }));
    return node;
  };
  for (const id of controlIds) nodeOf(id);
  for (const pair of await loadControlFrameworkPairs(trx, org, [], [...frameworks]))
    nodeOf(pair.controlId).frameworkIds.add(pair.frameworkId);
  const { artifacts, outOfScope } = await loadControlsArtifacts(trx, org, [...nodes.keys()]);
  const ids = { policy: new Set<string>(), evidence: new Set<string>(), test: new Set<string>() };
  for (const link of artifacts) {
    nodeOf(link.controlId).artifactKeys.push(artifactKey(link.type, link.id));
    ids[link.type].add(link.id);
  }
  for (const id of outOfScope) nodeOf(id).scope = 'out_of_scope';
  const pairs = await loadFrameworkArtifactPairs(trx, org, [...frameworks]);
  for (const pair of pairs) ids[pair.type].add(pair.id);
  const artifactFrameworks = artifactFrameworksOf(pairs);
  const columns = await loadArtifactColumns(trx, org, { policy: [...ids.policy], evidence: [...ids.evidence], test: [...ids.test] });
  return { nodes, artifactFrameworks, states: artifactStates(columns) };
}
