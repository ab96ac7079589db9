// The computed events (issue 15): when a write changes an artifact's state under the compliance
// rule (src/domain/compliance/rules.ts), the controls it is linked to may flip their status
// (control.status_changed) and the frameworks of those controls, or the artifact's own, may change
// their complianceProgress (framework.progress_changed). This diffs the computed state before and
// after the write, inside the write's transaction (after its change, under the organization's row
// lock, so no other write of the organization runs in between).
//
// Only what the write can change is computed: nothing at all unless the artifact's state under the
// rule flipped (a relevant evidence record becoming complete or no longer complete: the rule reads
// nothing else of it); then the status of the controls linked to it, and the progress of their
// frameworks and the artifact's. The inputs are the controls snapshot's own grouped reads
// (src/domain/controls/snapshot.ts: one row per group of equal stored columns, not per artifact),
// read through the transaction so they include the write; the state before is the same graph with
// the artifact's earlier state put back.
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
  type ComplianceGraph,
  type ControlNode,
} from '../compliance/rules.ts';
import {
  loadControlLinks,
  loadFrameworkNames,
  loadFrameworksArtifacts,
  loadStatusGroups,
  loadTestGroups,
  listOutOfScopeControlIds,
} from '../../storage/db/repositories/controls.ts';
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

/** The control and framework events a change of one artifact's state causes, in that order. */
export async function complianceChanges(trx: Kysely<Database>, organizationId: string, change: ArtifactChange): Promise<NewEvent[]> {
  if (sameUnderRule(change.before, change.after)) return [];
  const org = organizationId;
  const key = artifactKey(change.type, change.id);
  const links = await loadControlLinks(trx, org);
  const controls: ControlNode[] = [];
  for (const [id, keys] of links.controlArtifacts) {
    if (keys.includes(key))
      controls.push({ id, scope: '', frameworkIds: links.controlFrameworks.get(id) ?? new Set(), artifactKeys: keys });
  }
  const frameworkNames = await loadFrameworkNames(trx, org);
  const artifactFrameworks = await loadFrameworksArtifacts(trx, org, [...frameworkNames.keys()], links);
  // Frameworks whose progress can move: those of the controls that can flip, and the artifact's own.
  const frameworks = new Set<string>(artifactFrameworks.get(links.key(key)) ?? []);
  for (const c of controls) for (const f of c.frameworkIds) frameworks.add(f);
  if (controls.length === 0 && frameworks.size === 0) return [];

  const [outOfScope, policies, evidence, tests] = await Promise.all([
    listOutOfScopeControlIds(trx, org),
    loadStatusGroups(trx, org, 'policies', links),
    loadStatusGroups(trx, org, 'evidence', links),
    loadTestGroups(trx, org, links),
  ]);
  const after = new Map<ArtifactKey, ArtifactState>();
  for (const g of policies) for (const k of g.keys) after.set(k, policyState(g.isRelevant, g.status));
  for (const g of evidence) for (const k of g.keys) after.set(k, evidenceState(g.isRelevant, g.status));
  for (const g of tests) for (const k of g.keys) after.set(k, testState(testStatus(g.result, g.integrationFailing)));
  const before = new Map(after);
  before.set(links.key(key), change.before);

  // Every control that counts toward those frameworks' progress (in scope and mapped to one).
  const nodes: ControlNode[] = [];
  for (const [id, frameworkIds] of links.controlFrameworks) {
    if (![...frameworkIds].some((f) => frameworks.has(f))) continue;
    nodes.push({
      id,
      scope: outOfScope.has(id) ? 'out_of_scope' : 'in_scope',
      frameworkIds,
      artifactKeys: links.controlArtifacts.get(id) ?? [],
    });
  }
  for (const c of controls) c.scope = outOfScope.has(c.id) ? 'out_of_scope' : 'in_scope';

  const graphBefore: ComplianceGraph = { artifacts: before, artifactFrameworks };
  const graphAfter: ComplianceGraph = { artifacts: after, artifactFrameworks };
  const events: NewEvent[] = [];
  const at = change.occurredAt;
  for (const control of controls.sort((a, b) => (a.id < b.id ? -1 : 1))) {
    // The control's status as GET /v1/controls/{controlId} computes it: over all its artifacts.
    const was = controlCompliance(control, { artifacts: before, artifactFrameworks: new Map() }).status;
    const is = controlCompliance(control, { artifacts: after, artifactFrameworks: new Map() }).status;
    if (was !== is) {
      events.push({
        type: 'control.status_changed',
        resourceId: control.id,
        occurredAt: at,
        data: { before: was, after: is, cause: change.cause },
      });
    }
  }
  const ids = [...frameworks].sort();
  const progressBefore = frameworksProgress(ids, nodes, graphBefore);
  const progressAfter = frameworksProgress(ids, nodes, graphAfter);
  for (const id of ids) {
    const was = progressBefore.get(id)!;
    const is = progressAfter.get(id)!;
    if (JSON.stringify(was) !== JSON.stringify(is)) {
      events.push({ type: 'framework.progress_changed', resourceId: id, occurredAt: at, data: { before: was, after: is } });
    }
  }
  return events;
}
