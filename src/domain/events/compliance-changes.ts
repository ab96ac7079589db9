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
  frameworksProgress,
  type ArtifactKey,
  type ArtifactState,
  type ArtifactType,
  type ControlNode,
} from '../compliance/rules.ts';
import { progressChanges } from '../compliance/graph.ts';
import {
  findArtifactReach,
  findArtifactsReach,
  loadControlFrameworkPairs,
} from '../../storage/db/repositories/compliance/compliance-scope.ts';
import { loadReach } from './compliance-reach.ts';
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
  const { nodes, artifactFrameworks, states: after } = await loadReach(trx, org, controlIds, frameworks);
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
  events.push(...progressChanges(frameworkIds, progressBefore, progressAfter, at));
  return events;
}
