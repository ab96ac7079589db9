// Exact controls and the artifacts mapped to them, with every field and link the controls API
// shows (people, entities, risks, requirements, cloud and automated tests), for the controls
// contract and property tests. Like fixtures.ts, every helper bumps the organization's data
// version after writing, as every real write does. `organization` writes a whole generated
// organization in one statement per table (the property test writes many).
import { bumpingDataVersion } from './fixtures.ts';
import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { Db } from '../../src/storage/db/connect.ts';
import type { ArtifactType, Database } from '../../src/storage/db/schema.ts';

export const T0 = Date.UTC(2025, 0, 1);
export const T1 = Date.UTC(2025, 6, 1);

export interface ControlSpec {
  code: string;
  name: string;
  description?: string | null;
  domain?: string;
  functionGrouping?: string;
  scope?: 'in_scope' | 'out_of_scope';
  outOfScopeReason?: string | null;
  markedOutOfScopeBy?: string | null;
  questions?: string[];
  addedBy?: string | null;
  addedOn?: number;
  lastModifiedBy?: string | null;
  modifiedOn?: number | null;
  requirementIds?: string[];
  /** person IDs in order; the first is the primary assignee */
  assignees?: string[];
  entityIds?: string[];
  riskIds?: string[];
}

export interface PolicySpec {
  name: string;
  status: string;
  isRelevant?: boolean;
  notRelevantReason?: string | null;
  entityIds?: string[];
}
export type EvidenceSpec = PolicySpec;

export interface TestSpec {
  name: string;
  result: 'ignored' | 'fix_required' | 'passing';
  integrationFailing?: boolean;
  kind?: 'automated' | 'cloud';
  ignoreReason?: string | null;
  entityIds?: string[];
}

/** A whole organization, written with one statement per table (IDs chosen by the caller). */
export interface OrganizationSpec {
  people: Array<{ id: string; name: string; email: string }>;
  entities: Array<{ id: string; name: string }>;
  frameworks: Array<{ id: string; name: string; entityIds: string[] }>;
  requirements: Array<{ id: string; frameworkId: string; code: string }>;
  controls: Array<ControlSpec & { id: string }>;
  policies: Array<PolicySpec & { id: string }>;
  evidence: Array<EvidenceSpec & { id: string }>;
  tests: Array<TestSpec & { id: string }>;
  /** artifact → controls and requirements */
  mappings: Array<{ type: ArtifactType; id: string; controlIds: string[]; requirementIds: string[] }>;
}

type K = Kysely<Database>;

function controlRow(org: string, id: string, c: ControlSpec): Insertable<Database['controls']> {
  return {
    id,
    organization_id: org,
    code: c.code,
    name: c.name,
    description: c.description ?? null,
    domain: c.domain ?? 'Access Control',
    function_grouping: c.functionGrouping ?? 'protect',
    scope: c.scope ?? 'in_scope',
    out_of_scope_reason: c.outOfScopeReason ?? null,
    marked_out_of_scope_by: c.markedOutOfScopeBy ?? null,
    questions: JSON.stringify(c.questions ?? []),
    added_by: c.addedBy ?? null,
    added_on: c.addedOn ?? T0,
    last_modified_by: c.lastModifiedBy ?? null,
    modified_on: c.modifiedOn ?? null,
  };
}

function controlLinks(org: string, id: string, c: ControlSpec) {
  return {
    requirements: (c.requirementIds ?? []).map((requirement_id) => ({ organization_id: org, control_id: id, requirement_id })),
    people: (c.assignees ?? []).map((person_id, i) => ({
      organization_id: org,
      subject_type: 'control' as const,
      subject_id: id,
      person_id,
      role: 'assignee' as const,
      is_primary: i === 0,
      position: i,
    })),
    entities: (c.entityIds ?? []).map((entity_id) => ({
      organization_id: org,
      subject_type: 'control' as const,
      subject_id: id,
      entity_id,
    })),
    risks: (c.riskIds ?? []).map((risk_id) => ({ organization_id: org, risk_id, subject_type: 'control' as const, subject_id: id })),
  };
}

function policyRow(org: string, id: string, p: PolicySpec): Insertable<Database['policies']> {
  return {
    id,
    organization_id: org,
    custom_id: `POL-${id.slice(0, 6)}`,
    name: p.name,
    status: p.status,
    department: null,
    is_relevant: p.isRelevant ?? true,
    not_relevant_reason: p.notRelevantReason ?? null,
    next_review_date: null,
    gap_status: 'no_gaps',
    ai_detected_gaps: '[]',
    policy_behavior: null,
    version_number: null,
    effort_estimate: null,
    recurrence: null,
    source: null,
    requirement_text: null,
    published_by: null,
    published_on: null,
    added_by: null,
    added_on: T0,
    last_modified_by: null,
    modified_on: null,
  };
}

function evidenceRow(org: string, id: string, e: EvidenceSpec): Insertable<Database['evidence']> {
  return {
    id,
    organization_id: org,
    name: e.name,
    status: e.status,
    department: null,
    is_relevant: e.isRelevant ?? true,
    not_relevant_reason: e.notRelevantReason ?? null,
    next_review_date: null,
    gap_status: 'no_gaps',
    gaps: '[]',
    recurrence: null,
    effort_estimate: null,
    source: null,
    collection_method: null,
    requirement_text: null,
    revision_requested_by: null,
    revision_requested_on: null,
    rejection_reason: null,
    added_by: null,
    added_on: T0,
    last_modified_by: null,
    modified_on: null,
  };
}

function testRow(org: string, id: string, t: TestSpec): Insertable<Database['tests']> {
  return {
    id,
    organization_id: org,
    kind: t.kind ?? 'automated',
    name: t.name,
    result: t.result,
    integration_failing: t.integrationFailing ?? false,
    description: null,
    remediation: null,
    notes: null,
    effort_estimate: null,
    ignore_reason: t.ignoreReason ?? null,
    last_scanned_on: null,
    added_on: T0,
    modified_on: null,
  };
}

const entityLinks = (org: string, type: ArtifactType, id: string, entityIds: string[] | undefined) =>
  (entityIds ?? []).map((entity_id) => ({ organization_id: org, subject_type: type, subject_id: id, entity_id }));

/** Inserts `rows` in one statement (none when empty). */
async function insert<T extends keyof Database>(k: K, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  if (rows.length > 0) await (k as Kysely<any>).insertInto(table).values(rows).execute();
}

export const newTestId = () => `test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

function rawControlFixtures(db: Db, organizationId: string) {
  const k = db.kysely;
  const org = organizationId;
  return {
    async risk(name: string) {
      const id = randomUUID();
      await k.insertInto('risks').values({ id, organization_id: org, name }).execute();
      return id;
    },
    async control(spec: ControlSpec) {
      const id = randomUUID();
      await k
        .insertInto('controls')
        .values(controlRow(org, id, spec))
        .execute();
      const links = controlLinks(org, id, spec);
      await insert(k, 'control_requirements', links.requirements);
      await insert(k, 'subject_people', links.people);
      await insert(k, 'subject_entities', links.entities);
      await insert(k, 'risk_links', links.risks);
      return id;
    },
    async policy(spec: PolicySpec) {
      const id = randomUUID();
      await k
        .insertInto('policies')
        .values(policyRow(org, id, spec))
        .execute();
      await insert(k, 'subject_entities', entityLinks(org, 'policy', id, spec.entityIds));
      return id;
    },
    async evidence(spec: EvidenceSpec) {
      const id = randomUUID();
      await k
        .insertInto('evidence')
        .values(evidenceRow(org, id, spec))
        .execute();
      await insert(k, 'subject_entities', entityLinks(org, 'evidence', id, spec.entityIds));
      return id;
    },
    async test(spec: TestSpec) {
      const id = newTestId();
      await k
        .insertInto('tests')
        .values(testRow(org, id, spec))
        .execute();
      await insert(k, 'subject_entities', entityLinks(org, 'test', id, spec.entityIds));
      return id;
    },
    /** Maps an artifact to controls and to requirements (so to frameworks). */
    async map(type: ArtifactType, artifactId: string, opts: { controlIds?: string[]; requirementIds?: string[] }) {
      await insert(
        k,
        'control_artifacts',
        (opts.controlIds ?? []).map((control_id) => ({ organization_id: org, control_id, artifact_type: type, artifact_id: artifactId })),
      );
      await insert(
        k,
        'artifact_requirements',
        (opts.requirementIds ?? []).map((requirement_id) => ({
          organization_id: org,
          artifact_type: type,
          artifact_id: artifactId,
          requirement_id,
        })),
      );
    },
    /** Sets a policy's status (a write, as the API's future writers would do it). */
    async setPolicyStatus(policyId: string, status: string) {
      await k.updateTable('policies').set({ status }).where('id', '=', policyId).where('organization_id', '=', org).execute();
    },
    /** Writes a whole organization: one statement per table. */
    async organization(spec: OrganizationSpec) {
      await insert(
        k,
        'people',
        spec.people.map((p) => ({ id: p.id, organization_id: org, name: p.name, email: p.email })),
      );
      await insert(
        k,
        'entities',
        spec.entities.map((e) => ({ id: e.id, organization_id: org, name: e.name })),
      );
      await insert(
        k,
        'frameworks',
        spec.frameworks.map((f) => ({
          id: f.id,
          organization_id: org,
          name: f.name,
          next_audit_date: null,
          tsc_selections: '[]',
          added_by: null,
          added_on: T0,
          last_modified_by: null,
          modified_on: null,
        })),
      );
      await insert(
        k,
        'requirements',
        spec.requirements.map((r) => ({
          id: r.id,
          organization_id: org,
          framework_id: r.frameworkId,
          code: r.code,
          name: `Requirement ${r.code}`,
        })),
      );
      await insert(
        k,
        'controls',
        spec.controls.map((c) => controlRow(org, c.id, c)),
      );
      const links = spec.controls.map((c) => controlLinks(org, c.id, c));
      await insert(
        k,
        'control_requirements',
        links.flatMap((l) => l.requirements),
      );
      await insert(
        k,
        'subject_people',
        links.flatMap((l) => l.people),
      );
      await insert(
        k,
        'policies',
        spec.policies.map((p) => policyRow(org, p.id, p)),
      );
      await insert(
        k,
        'evidence',
        spec.evidence.map((e) => evidenceRow(org, e.id, e)),
      );
      await insert(
        k,
        'tests',
        spec.tests.map((t) => testRow(org, t.id, t)),
      );
      await insert(k, 'subject_entities', [
        ...spec.frameworks.flatMap((f) =>
          f.entityIds.map((entity_id) => ({ organization_id: org, subject_type: 'framework' as const, subject_id: f.id, entity_id })),
        ),
        ...links.flatMap((l) => l.entities),
        ...spec.policies.flatMap((p) => entityLinks(org, 'policy', p.id, p.entityIds)),
        ...spec.evidence.flatMap((e) => entityLinks(org, 'evidence', e.id, e.entityIds)),
        ...spec.tests.flatMap((t) => entityLinks(org, 'test', t.id, t.entityIds)),
      ]);
      await insert(
        k,
        'control_artifacts',
        spec.mappings.flatMap((m) =>
          m.controlIds.map((control_id) => ({ organization_id: org, control_id, artifact_type: m.type, artifact_id: m.id })),
        ),
      );
      await insert(
        k,
        'artifact_requirements',
        spec.mappings.flatMap((m) =>
          m.requirementIds.map((requirement_id) => ({ organization_id: org, artifact_type: m.type, artifact_id: m.id, requirement_id })),
        ),
      );
    },
  };
}

/** The controls fixtures of one organization; each helper bumps its data version after writing. */
export function controlFixtures(db: Db, organizationId: string) {
  return bumpingDataVersion(db, organizationId, rawControlFixtures(db, organizationId));
}
