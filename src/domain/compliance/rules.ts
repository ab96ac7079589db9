// The compliance rule (docs/decisions/resources.md, "The compliance rule") as pure functions over plain
// data, so it can be unit- and property-tested without a database and shared by every endpoint
// that reports compliance.
import type { CONTROL_STATUSES } from '../controls/schema.ts';
import type { FrameworkProgress } from '../frameworks/schema.ts';
import type { TEST_STATUSES } from '../../shared/vocabulary.ts';

export type ArtifactType = 'policy' | 'evidence' | 'test';
export type ControlStatus = (typeof CONTROL_STATUSES)[number];
export type TestStatus = (typeof TEST_STATUSES)[number];

/** `${type}:${id}` */
export type ArtifactKey = string;
export const artifactKey = (type: ArtifactType, id: string): ArtifactKey => `${type}:${id}`;

export interface ArtifactState {
  relevant: boolean;
  complete: boolean;
}

/** A passing automated test whose observability integration fails is reported as `affected`. */
export function testStatus(result: string, integrationFailing: boolean): TestStatus {
  if (result === 'passing' && integrationFailing) return 'affected';
  return result as TestStatus;
}

export const policyState = (isRelevant: boolean, status: string): ArtifactState => ({
  relevant: isRelevant,
  complete: status === 'published',
});
export const evidenceState = (isRelevant: boolean, status: string): ArtifactState => ({
  relevant: isRelevant,
  complete: status === 'uploaded',
});
export const testState = (status: TestStatus): ArtifactState => ({
  relevant: status !== 'ignored',
  complete: status === 'passing',
});

export interface ComplianceGraph {
  artifacts: Map<ArtifactKey, ArtifactState>;
  /** frameworks each artifact is mapped to (through its requirements) */
  artifactFrameworks: Map<ArtifactKey, Set<string>>;
}

export interface ControlNode {
  id: string;
  scope: string;
  frameworkIds: Set<string>;
  artifactKeys: ArtifactKey[];
}

export interface ControlCompliance {
  status: ControlStatus;
  percentage: number | 'not_applicable';
  relevant: number;
  complete: number;
}

function mappedToAny(graph: ComplianceGraph, key: ArtifactKey, frameworkIds: ReadonlySet<string>): boolean {
  const mapped = graph.artifactFrameworks.get(key);
  if (!mapped) return false;
  for (const id of frameworkIds) if (mapped.has(id)) return true;
  return false;
}

/**
 * A control's status over its relevant artifacts: when `frameworkIds` is given, only artifacts
 * mapped to at least one of those frameworks count.
 */
export function controlCompliance(control: ControlNode, graph: ComplianceGraph, frameworkIds?: ReadonlySet<string>): ControlCompliance {
  let relevant = 0;
  let complete = 0;
  for (const key of control.artifactKeys) {
    const state = graph.artifacts.get(key);
    if (!state?.relevant) continue;
    if (frameworkIds && !mappedToAny(graph, key, frameworkIds)) continue;
    relevant += 1;
    if (state.complete) complete += 1;
  }
  if (control.scope === 'out_of_scope' || relevant === 0) {
    return { status: 'not_applicable', percentage: 'not_applicable', relevant, complete };
  }
  return {
    status: complete === relevant ? 'compliant' : 'non_compliant',
    percentage: Math.floor((100 * complete) / relevant),
    relevant,
    complete,
  };
}

export const percentage = (count: number, total: number) => (total === 0 ? 0 : Math.floor((100 * count) / total));

const emptyProgress = (): FrameworkProgress => ({
  controls: { compliant: 0, total: 0, percentage: 0 },
  policies: { published: 0, total: 0, percentage: 0 },
  evidence: { uploaded: 0, total: 0, percentage: 0 },
  tests: { passing: 0, total: 0, percentage: 0 },
});

/**
 * Progress of each framework: controls = compliant / in-scope controls mapped to it (status
 * computed over that framework alone, so it agrees with the controls list filtered by it);
 * artifacts = complete / relevant among those mapped to it, each counted once. One pass over
 * controls and one over artifacts, whatever the number of frameworks.
 */
export function frameworksProgress(
  frameworkIds: Iterable<string>,
  controls: Iterable<ControlNode>,
  graph: ComplianceGraph,
): Map<string, FrameworkProgress> {
  const result = new Map<string, FrameworkProgress>();
  for (const id of frameworkIds) result.set(id, emptyProgress());
  for (const control of controls) {
    if (control.scope !== 'in_scope') continue;
    for (const frameworkId of control.frameworkIds) {
      const progress = result.get(frameworkId);
      if (!progress) continue;
      progress.controls.total += 1;
      if (controlCompliance(control, graph, new Set([frameworkId])).status === 'compliant') {
        progress.controls.compliant += 1;
      }
    }
  }
  for (const [key, frameworks] of graph.artifactFrameworks) {
    const state = graph.artifacts.get(key);
    if (!state?.relevant) continue;
    const type = key.slice(0, key.indexOf(':')) as ArtifactType;
    for (const frameworkId of frameworks) {
      const progress = result.get(frameworkId);
      if (!progress) continue;
      const bucket = type === 'policy' ? progress.policies : type === 'evidence' ? progress.evidence : progress.tests;
      bucket.total += 1;
      if (state.complete) {
        if ('published' in bucket) bucket.published += 1;
        else if ('uploaded' in bucket) bucket.uploaded += 1;
        else bucket.passing += 1;
      }
    }
  }
  for (const progress of result.values()) {
    progress.controls.percentage = percentage(progress.controls.compliant, progress.controls.total);
    progress.policies.percentage = percentage(progress.policies.published, progress.policies.total);
    progress.evidence.percentage = percentage(progress.evidence.uploaded, progress.evidence.total);
    progress.tests.percentage = percentage(progress.tests.passing, progress.tests.total);
  }
  return result;
}
