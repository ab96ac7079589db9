// The computed effects of an apply: which controls' statuses flip and which frameworks' progress
// moves. A bulk apply computes the compliance rule (src/domain/compliance/rules.ts) over the
// organization's controls and frameworks once before its writes and once after, inside its
// transaction, instead of once per changed record (events/compliance-changes.ts does that for a
// single artifact's change), with one statement per table for the whole organization.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import {
  artifactKey,
  controlCompliance,
  frameworksProgress,
  type ArtifactKey,
  type ControlNode,
  type ControlStatus,
} from '../compliance/rules.ts';
import { artifactFrameworksOf, artifactStates } from '../compliance/graph.ts';
import type { FrameworkProgress } from '../frameworks/schema.ts';
import { loadComplianceGraph } from '../../storage/db/repositories/program/program-reads.ts';

export interface ComplianceState {
  controls: Map<string, ControlStatus>;
  frameworks: Map<string, FrameworkProgress>;
}

/** Every control's status (as GET /v1/controls/{controlId} computes it) and every framework's progress. */
export async function complianceState(trx: Kysely<Database>, organizationId: string): Promise<ComplianceState> {
  const g = await loadComplianceGraph(trx, organizationId);
  const nodes = new Map<string, ControlNode>();
  for (const c of g.controls) nodes.set(c.id, { id: c.id, scope: c.scope, frameworkIds: new Set(), artifactKeys: [] });
  for (const pair of g.controlFrameworks) nodes.get(pair.controlId)?.frameworkIds.add(pair.frameworkId);
  for (const link of g.links) nodes.get(link.controlId)?.artifactKeys.push(artifactKey(link.type, link.id));
  const artifactFrameworks = artifactFrameworksOf(g.artifactFrameworks);
  const states = artifactStates(g);

  const controls = new Map<string, ControlStatus>();
  const noFrameworks = new Map<ArtifactKey, Set<string>>();
  for (const node of nodes.values())
    controls.set(node.id, controlCompliance(node, { artifacts: states, artifactFrameworks: noFrameworks }).status);
  const frameworks = frameworksProgress(g.frameworkIds, nodes.values(), { artifacts: states, artifactFrameworks });
  return { controls, frameworks };
}

export interface ComplianceEffects {
  controls: Array<{ controlId: string; before: ControlStatus; after: ControlStatus }>;
  frameworks: Array<{ frameworkId: string; before: FrameworkProgress; after: FrameworkProgress }>;
}

/** What moved between two states, for records present in both (a created or deleted record has no flip), sorted by ID. */
export function effectsBetween(before: ComplianceState, after: ComplianceState): ComplianceEffects {
  const controls: ComplianceEffects['controls'] = [];
  for (const [id, was] of before.controls) {
    const is = after.controls.get(id);
    if (is !== undefined && is !== was) controls.push({ controlId: id, before: was, after: is });
  }
  const frameworks: ComplianceEffects['frameworks'] = [];
  for (const [id, was] of before.frameworks) {
    const is = after.frameworks.get(id);
    if (is !== undefined && JSON.stringify(is) !== JSON.stringify(was)) frameworks.push({ frameworkId: id, before: was, after: is });
  }
  const byId =
    <T>(key: (x: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  controls.sort(byId((c) => c.controlId));
  frameworks.sort(byId((f) => f.frameworkId));
  return { controls, frameworks };
}
