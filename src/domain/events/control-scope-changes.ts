// The computed events of a control's scope change (PATCH /v1/controls/{controlId}, and a program
// document that rescopes a control): the control's own status (an out-of-scope control is
// `not_applicable`) and the progress of its frameworks, which count only in-scope controls. Like
// complianceChanges (compliance-changes.ts), this evaluates the compliance rule's own functions
// (src/domain/compliance/rules.ts) inside the write's transaction, after the change, on the part
// of the graph the change can reach — the control's frameworks, their controls and artifacts —
// then on the same graph with the control's earlier scope put back.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { controlCompliance, frameworksProgress, type ArtifactKey, type ControlNode } from '../compliance/rules.ts';
import { progressChanges } from '../compliance/graph.ts';
import { loadControlFrameworkPairs } from '../../storage/db/repositories/compliance/compliance-scope.ts';
import { loadReach } from './compliance-reach.ts';
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
  const { nodes, artifactFrameworks, states } = await loadReach(trx, org, [change.controlId], frameworks);

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
  events.push(...progressChanges(frameworkIds, progressBefore, progressAfter, at));
  return events;
}
