// The computed events of a control's scope change (PATCH /v1/controls/{controlId}, and a program
// document that rescopes a control): the control's own status (an out-of-scope control is
// `not_applicable`) and the progress of its frameworks, which count only in-scope controls. Like
// complianceChanges (compliance-changes.ts), this evaluates the compliance rule's own functions
// (src/domain/compliance/rules.ts) inside the write's transaction, after the change, on the part
// of the graph the change can reach — the control's frameworks, their controls and artifacts —
// then on the same graph with the control's earlier scope put back.
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
  type ControlNode,
} from '../compliance/rules.ts';
import {
  loadArtifactColumns,
  loadControlFrameworkPairs,
  loadControlsArtifacts,
  loadFrameworkArtifactPairs,
} from '../../storage/db/repositories/compliance/compliance-scope.ts';
import type { NewEvent } from './record.ts';

export interface ControlScopeChange {
  controlId: string;
  /** the control's scope before the write (its scope after is read from the transaction) */
  before: string;
  after: string;
  /** the event that names the change, given as the control.status_changed event's cause */
  cause: { type: string; resourceId: string };
  occurredAt: number;
}

/** The control.status_changed and framework.progress_changed events a scope change causes, in that order. */
export async function controlScopeChanges(trx: Kysely<Database>, organizationId: string, change: ControlScopeChange): Promise<NewEvent[]> {
  if (change.before === change.after) return [];
  const org = organizationId;
  const frameworks = new Set((await loadControlFrameworkPairs(trx, org, [change.controlId], [])).map((p) => p.frameworkId));

  // The control, and every control counted by its frameworks, with its frameworks among them.
  const nodes = new Map<string, ControlNode>();
  const nodeOf = (id: string) => {
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { id, scope: 'in_scope', frameworkIds: new Set(), artifactKeys: [] }));
    return node;
  };
  nodeOf(change.controlId);
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
  const states = new Map<ArtifactKey, ArtifactState>();
  for (const p of columns.policies) states.set(artifactKey('policy', p.id), policyState(p.isRelevant, p.status));
  for (const e of columns.evidence) states.set(artifactKey('evidence', e.id), evidenceState(e.isRelevant, e.status));
  for (const t of columns.tests) states.set(artifactKey('test', t.id), testState(testStatus(t.result, t.integrationFailing)));

  const control = nodes.get(change.controlId)!;
  const controlsAfter = [...nodes.values()];
  const controlBefore: ControlNode = { ...control, scope: change.before };
  const controlsBefore = controlsAfter.map((n) => (n.id === change.controlId ? controlBefore : n));

  const events: NewEvent[] = [];
  const at = change.occurredAt;
  // The control's status as GET /v1/controls/{controlId} computes it: over all its artifacts.
  const overAll = { artifacts: states, artifactFrameworks: new Map<ArtifactKey, Set<string>>() };
  const was = controlCompliance(controlBefore, overAll).status;
  const is = controlCompliance(control, overAll).status;
  if (was !== is) {
    events.push({
      type: 'control.status_changed',
      resourceId: change.controlId,
      occurredAt: at,
      data: { before: was, after: is, cause: change.cause },
    });
  }
  const frameworkIds = [...frameworks].sort();
  const graph = { artifacts: states, artifactFrameworks };
  const progressBefore = frameworksProgress(frameworkIds, controlsBefore, graph);
  const progressAfter = frameworksProgress(frameworkIds, controlsAfter, graph);
  for (const id of frameworkIds) {
    const before = progressBefore.get(id)!;
    const after = progressAfter.get(id)!;
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      events.push({ type: 'framework.progress_changed', resourceId: id, occurredAt: at, data: { before, after } });
    }
  }
  return events;
}
