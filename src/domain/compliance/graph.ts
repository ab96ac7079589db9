// The compliance rule's graph (rules.ts) put together from the columns the repositories read as
// stored: one way for every reader of the rule over rows (the program's effects,
// program/effects.ts; the computed events, events/compliance-reach.ts), so they cannot disagree.
import type { FrameworkProgress } from '../frameworks/schema.ts';
import {
  artifactKey,
  evidenceState,
  policyState,
  testState,
  testStatus,
  type ArtifactKey,
  type ArtifactState,
  type ArtifactType,
} from './rules.ts';

/** The columns of each kind of artifact the rule reads. */
export interface ArtifactColumns {
  policies: ReadonlyArray<{ id: string; isRelevant: boolean; status: string }>;
  evidence: ReadonlyArray<{ id: string; isRelevant: boolean; status: string }>;
  tests: ReadonlyArray<{ id: string; result: string; integrationFailing: boolean }>;
}

/** A policy's state under the rule, from its stored columns. */
export const policyRowState = (p: { isRelevant: boolean; status: string }): ArtifactState => policyState(p.isRelevant, p.status);
/** An evidence record's state under the rule, from its stored columns. */
export const evidenceRowState = (e: { isRelevant: boolean; status: string }): ArtifactState => evidenceState(e.isRelevant, e.status);
/** A test's state under the rule, from its stored columns (its result and integration). */
export const testRowState = (t: { result: string; integrationFailing: boolean }): ArtifactState =>
  testState(testStatus(t.result, t.integrationFailing));

/** Every artifact's state under the rule. */
export function artifactStates(columns: ArtifactColumns): Map<ArtifactKey, ArtifactState> {
  const states = new Map<ArtifactKey, ArtifactState>();
  for (const p of columns.policies) states.set(artifactKey('policy', p.id), policyRowState(p));
  for (const e of columns.evidence) states.set(artifactKey('evidence', e.id), evidenceRowState(e));
  for (const t of columns.tests) states.set(artifactKey('test', t.id), testRowState(t));
  return states;
}

/** The frameworks each artifact is mapped to (through its requirements). */
export function artifactFrameworksOf(
  pairs: Iterable<{ frameworkId: string; type: ArtifactType; id: string }>,
): Map<ArtifactKey, Set<string>> {
  const artifactFrameworks = new Map<ArtifactKey, Set<string>>();
  for (const pair of pairs) {
    const key = artifactKey(pair.type, pair.id);
    let set = artifactFrameworks.get(key);
    if (!set) artifactFrameworks.set(key, (set = new Set()));
    set.add(pair.frameworkId);
  }
  return artifactFrameworks;
}

/** The framework.progress_changed events of the frameworks whose progress differs, in `frameworkIds`' order. */
export function progressChanges(
  frameworkIds: readonly string[],
  before: ReadonlyMap<string, FrameworkProgress>,
  after: ReadonlyMap<string, FrameworkProgress>,
  occurredAt: number,
) {
  const events: Array<{
    type: 'framework.progress_changed';
    resourceId: string;
    occurredAt: number;
    data: { before: FrameworkProgress; after: FrameworkProgress };
  }> = [];
  for (const id of frameworkIds) {
    const was = before.get(id)!;
    const is = after.get(id)!;
    if (JSON.stringify(was) !== JSON.stringify(is))
      events.push({ type: 'framework.progress_changed', resourceId: id, occurredAt, data: { before: was, after: is } });
  }
  return events;
}
