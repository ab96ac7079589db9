// The computed events (issue 15): when a write changes an artifact's state under the compliance
// rule (src/domain/compliance/rules.ts), the controls it is linked to may flip their status
// (control.status_changed) and the frameworks of those controls, or the artifact's own, may change
// their complianceProgress (framework.progress_changed). This diffs the computed state before and
// after the write, inside the write's transaction (after its change, under the organization's row
// lock, so no other write of the organization runs in between).
//
// Only what the write can change is computed. Nothing at all unless the artifact's state under the
// rule flipped (the rule reads nothing else of it). Then the reach of the artifact: the controls
// linked to it, and the frameworks of those controls and of the artifact; a framework's progress
// counts every in-scope control mapped to it (each over that framework's artifacts alone) and every
// artifact mapped to it, so those are read too, and nothing of the organization's other frameworks
// (src/storage/db/repositories/compliance/compliance-scope.ts). The rule's own functions evaluate the graph
// after the change, then the same graph with the artifact's earlier state put back.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import {
  artifactKey,
  controlCompliance,
  evidenceState,
  frameworksProgress,
  policyState,
  testState,
  testStatus,
  type ArtifactKey,
  type ArtifactState,
  type ArtifactType,
  type ControlNode,
} from '../compliance/rules.ts';
import {
  findArtifactReach,
  findArtifactsReach,
  loadArtifactColumns,
  loadControlFrameworkPairs,
  loadControlsArtifacts,
  loadFrameworkArtifactPairs,
} from '../../storage/db/repositories/compliance/compliance-scope.ts';
import type { NewEvent } from './record.ts';

export interface ArtifactChange {
  type: ArtifactType;
  id: string;
  /** the artifact's state under the rule before the write (its state after is read from the transaction) */
  before: ArtifactState;
  after: ArtifactState;
  /** the event that names the change, given as the computed events' cause */
  cause: { type: string; resourceId: string };
  occurredAt: number;
}

/** Whether the rule can tell the two states apart: an artifact that is not relevant counts nowhere. */
const sameUnderRule = (a: ArtifactState, b: ArtifactState) => a.relevant === b.relevant && (!a.relevant || a.complete === b.complete);

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The control and framework events a change of one artifact's state causes, in that order. */
export async function complianceChanges(trx: Kysely<Database>, organizationId: string, change: ArtifactChange): Promise<NewEvent[]> {
  return complianceChangesOfMany(trx, organizationId, [change]);
}

/**
 * The control and framework events of many artifacts changed by one write (time making a batch of
 * records stale): the computed state before the write (every changed artifact's earlier state put
 * back) against the state after, so each flipped control and each moved framework records one
 * event. A control's `cause` is the first changed artifact linked to it (by the order given).
 */
export async function complianceChangesOfMany(
  trx: Kysely<Database>,
  organizationId: string,
  allChanges: readonly ArtifactChange[],
): Promise<NewEvent[]> {
  const changes = allChanges.filter((c) => !sameUnderRule(c.before, c.after));
  if (changes.length === 0) return [];
  const org = organizationId;
  const reach = { controlIds: new Set<string>(), frameworkIds: new Set<string>() };
  for (const type of ['policy', 'evidence', 'test'] as const) {
    const ids = changes.filter((c) => c.type === type).map((c) => c.id);
    if (ids.length === 0) continue;
    const one = ids.length === 1 ? await findArtifactReach(trx, org, type, ids[0]) : await findArtifactsReach(trx, org, type, ids);
    for (const id of one.controlIds) reach.controlIds.add(id);
    for (const id of one.frameworkIds) reach.frameworkIds.add(id);
  }
  const controlIds = [...reach.controlIds];
  // The frameworks whose progress can move: the artifacts', and those of the controls they can flip.
  const frameworks = new Set(reach.frameworkIds);
  for (const pair of await loadControlFrameworkPairs(trx, org, controlIds, [])) frameworks.add(pair.frameworkId);
  if (controlIds.length === 0 && frameworks.size === 0) return [];

  // Every control counted by those frameworks, with its frameworks among them, plus the linked controls.
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
  const artifactFrameworks = new Map<ArtifactKey, Set<string>>();
  for (const pair of await loadFrameworkArtifactPairs(trx, org, [...frameworks])) {
    const key = artifactKey(pair.type, pair.id);
    let set = artifactFrameworks.get(key);
    if (!set) artifactFrameworks.set(key, (set = new Set()));
    set.add(pair.frameworkId);
    ids[pair.type].add(pair.id);
  }

  const columns = await loadArtifactColumns(trx, org, { policy: [...ids.policy], evidence: [...ids.evidence], test: [...ids.test] });
  const after = new Map<ArtifactKey, ArtifactState>();
  for (const p of columns.policies) after.set(artifactKey('policy', p.id), policyState(p.isRelevant, p.status));
  for (const e of columns.evidence) after.set(artifactKey('evidence', e.id), evidenceState(e.isRelevant, e.status));
  for (const t of columns.tests) after.set(artifactKey('test', t.id), testState(testStatus(t.result, t.integrationFailing)));
  const before = new Map(after);
  /** each changed artifact's place in `changes` (its first) */
  const changed = new Map<ArtifactKey, number>();
  changes.forEach((c, index) => {
    const key = artifactKey(c.type, c.id);
    before.set(key, c.before);
    if (!changed.has(key)) changed.set(key, index);
  });
  const causeOf = (control: ControlNode) => {
    let first = Infinity;
    for (const key of control.artifactKeys) first = Math.min(first, changed.get(key) ?? Infinity);
    return changes[first === Infinity ? 0 : first].cause;
  };
  const change = { occurredAt: changes[0].occurredAt };

  const events: NewEvent[] = [];
  const at = change.occurredAt;
  const noFrameworks = new Map<ArtifactKey, Set<string>>();
  for (const control of controlIds.map((id) => nodes.get(id)!).sort(byId)) {
    // The control's status as GET /v1/controls/{controlId} computes it: over all its artifacts.
    const was = controlCompliance(control, { artifacts: before, artifactFrameworks: noFrameworks }).status;
    const is = controlCompliance(control, { artifacts: after, artifactFrameworks: noFrameworks }).status;
    if (was !== is) {
      events.push({
        type: 'control.status_changed',
        resourceId: control.id,
        occurredAt: at,
        data: { before: was, after: is, cause: causeOf(control) },
      });
    }
  }
  const frameworkIds = [...frameworks].sort();
  const progressBefore = frameworksProgress(frameworkIds, nodes.values(), { artifacts: before, artifactFrameworks });
  const progressAfter = frameworksProgress(frameworkIds, nodes.values(), { artifacts: after, artifactFrameworks });
  for (const id of frameworkIds) {
    const was = progressBefore.get(id)!;
    const is = progressAfter.get(id)!;
    if (JSON.stringify(was) !== JSON.stringify(is)) {
      events.push({ type: 'framework.progress_changed', resourceId: id, occurredAt: at, data: { before: was, after: is } });
    }
  }
  return events;
}
