// Tests only: everything the compliance rule needs for one organization, read row by row in a
// fixed number of queries (never one per row) and put through the rule: artifact states,
// artifact→framework and control→framework mappings. This is the plain reading of the mappings.
// The service reads them through the packed loaders of src/storage/db/repositories/compliance/compliance-inputs.ts
// (2–3× faster on SQLite) and applies the rule in src/domain/controls/snapshot.ts;
// test/http/controls.test.ts checks both agree on every control.
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/db/schema.ts';
import {
  artifactKey,
  evidenceState,
  policyState,
  testState,
  testStatus,
  type ArtifactKey,
  type ArtifactType,
  type ComplianceGraph,
  type ControlNode,
} from '../../src/domain/compliance/rules.ts';

type Q = Kysely<Database>;

export async function loadComplianceGraph(db: Q, organizationId: string): Promise<ComplianceGraph> {
  const [policies, evidence, tests, mappings] = await Promise.all([
    db.selectFrom('policies').select(['id', 'is_relevant', 'status']).where('organization_id', '=', organizationId).execute(),
    db.selectFrom('evidence').select(['id', 'is_relevant', 'status']).where('organization_id', '=', organizationId).execute(),
    db.selectFrom('tests').select(['id', 'result', 'integration_failing']).where('organization_id', '=', organizationId).execute(),
    db
      .selectFrom('artifact_requirements as ar')
      .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
      .select(['ar.artifact_type', 'ar.artifact_id', 'r.framework_id'])
      .where('ar.organization_id', '=', organizationId)
      .execute(),
  ]);
  const artifacts = new Map<ArtifactKey, { relevant: boolean; complete: boolean }>();
  for (const p of policies) artifacts.set(artifactKey('policy', p.id), policyState(Boolean(p.is_relevant), p.status));
  for (const e of evidence) artifacts.set(artifactKey('evidence', e.id), evidenceState(Boolean(e.is_relevant), e.status));
  for (const t of tests) {
    artifacts.set(artifactKey('test', t.id), testState(testStatus(t.result, Boolean(t.integration_failing))));
  }
  const artifactFrameworks = new Map<ArtifactKey, Set<string>>();
  for (const m of mappings) {
    const key = artifactKey(m.artifact_type as ArtifactType, m.artifact_id);
    let set = artifactFrameworks.get(key);
    if (!set) artifactFrameworks.set(key, (set = new Set()));
    set.add(m.framework_id);
  }
  return { artifacts, artifactFrameworks };
}

/** Every control of the organization as a node of the compliance rule. */
export async function loadControlNodes(db: Q, organizationId: string): Promise<Map<string, ControlNode>> {
  const [controls, frameworks, artifacts] = await Promise.all([
    db.selectFrom('controls').select(['id', 'scope']).where('organization_id', '=', organizationId).execute(),
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .select(['cr.control_id', 'r.framework_id'])
      .where('cr.organization_id', '=', organizationId)
      .execute(),
    db
      .selectFrom('control_artifacts')
      .select(['control_id', 'artifact_type', 'artifact_id'])
      .where('organization_id', '=', organizationId)
      .execute(),
  ]);
  const nodes = new Map<string, ControlNode>();
  for (const c of controls) nodes.set(c.id, { id: c.id, scope: c.scope, frameworkIds: new Set(), artifactKeys: [] });
  for (const f of frameworks) nodes.get(f.control_id)?.frameworkIds.add(f.framework_id);
  for (const a of artifacts) nodes.get(a.control_id)?.artifactKeys.push(artifactKey(a.artifact_type, a.artifact_id));
  return nodes;
}
