// Reads the program pipeline needs beside each kind's own (src/domain/program/).
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { chunked } from '../../id-chunks.ts';

type Q = Kysely<Database>;

/** The IDs of every control and framework of the organization. */
export async function listControlAndFrameworkIds(db: Q, organizationId: string): Promise<{ controlIds: string[]; frameworkIds: string[] }> {
  const [controls, frameworks] = await Promise.all([
    db.selectFrom('controls').select('id').where('organization_id', '=', organizationId).execute(),
    db.selectFrom('frameworks').select('id').where('organization_id', '=', organizationId).execute(),
  ]);
  return { controlIds: controls.map((r) => r.id), frameworkIds: frameworks.map((r) => r.id) };
}

export interface NamedRecords {
  people: Map<string, { name: string; email: string }>;
  entities: Map<string, string>;
  risks: Map<string, string>;
  requirements: Map<string, { frameworkId: string; frameworkName: string; code: string; name: string }>;
  controls: Map<string, { code: string; name: string }>;
}

/** Names of the given records, as GET answers show them (the `changes` of update events). */
export async function loadNamedRecords(
  db: Q,
  organizationId: string,
  ids: { people: string[]; entities: string[]; risks: string[]; requirements: string[]; controls: string[] },
): Promise<NamedRecords> {
  const org = organizationId;
  const [people, entities, risks, requirements, controls] = await Promise.all([
    chunked(ids.people, (c) =>
      db.selectFrom('people').select(['id', 'name', 'email']).where('organization_id', '=', org).where('id', 'in', c).execute(),
    ),
    chunked(ids.entities, (c) =>
      db.selectFrom('entities').select(['id', 'name']).where('organization_id', '=', org).where('id', 'in', c).execute(),
    ),
    chunked(ids.risks, (c) =>
      db.selectFrom('risks').select(['id', 'name']).where('organization_id', '=', org).where('id', 'in', c).execute(),
    ),
    chunked(ids.requirements, (c) =>
      db
        .selectFrom('requirements as r')
        .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
        .select(['r.id', 'r.code', 'r.name', 'f.id as framework_id', 'f.name as framework_name'])
        .where('r.organization_id', '=', org)
        .where('r.id', 'in', c)
        .execute(),
    ),
    chunked(ids.controls, (c) =>
      db.selectFrom('controls').select(['id', 'code', 'name']).where('organization_id', '=', org).where('id', 'in', c).execute(),
    ),
  ]);
  return {
    people: new Map(people.map((p) => [p.id, { name: p.name, email: p.email }])),
    entities: new Map(entities.map((e) => [e.id, e.name])),
    risks: new Map(risks.map((r) => [r.id, r.name])),
    requirements: new Map(
      requirements.map((r) => [r.id, { frameworkId: r.framework_id, frameworkName: r.framework_name, code: r.code, name: r.name }]),
    ),
    controls: new Map(controls.map((c) => [c.id, { code: c.code, name: c.name }])),
  };
}

/** The columns the compliance rule reads, for the whole organization at once: one statement per table, no lists of IDs. */
export async function loadComplianceGraph(db: Q, organizationId: string) {
  const org = organizationId;
  const [controls, controlFrameworks, links, artifactFrameworks, policies, evidence, tests] = await Promise.all([
    db.selectFrom('controls').select(['id', 'scope']).where('organization_id', '=', org).execute(),
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .select(['cr.control_id', 'r.framework_id'])
      .distinct()
      .where('cr.organization_id', '=', org)
      .execute(),
    db.selectFrom('control_artifacts').select(['control_id', 'artifact_type', 'artifact_id']).where('organization_id', '=', org).execute(),
    db
      .selectFrom('artifact_requirements as ar')
      .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
      .select(['r.framework_id', 'ar.artifact_type', 'ar.artifact_id'])
      .distinct()
      .where('ar.organization_id', '=', org)
      .execute(),
    db.selectFrom('policies').select(['id', 'is_relevant', 'status']).where('organization_id', '=', org).execute(),
    db.selectFrom('evidence').select(['id', 'is_relevant', 'status']).where('organization_id', '=', org).execute(),
    db.selectFrom('tests').select(['id', 'result', 'integration_failing']).where('organization_id', '=', org).execute(),
  ]);
  const frameworks = await db.selectFrom('frameworks').select('id').where('organization_id', '=', org).execute();
  return {
    controls: controls.map((c) => ({ id: c.id, scope: c.scope })),
    frameworkIds: frameworks.map((f) => f.id),
    controlFrameworks: controlFrameworks.map((r) => ({ controlId: r.control_id, frameworkId: r.framework_id })),
    links: links.map((l) => ({ controlId: l.control_id, type: l.artifact_type, id: l.artifact_id })),
    artifactFrameworks: artifactFrameworks.map((r) => ({ frameworkId: r.framework_id, type: r.artifact_type, id: r.artifact_id })),
    policies: policies.map((p) => ({ id: p.id, isRelevant: Boolean(p.is_relevant), status: p.status })),
    evidence: evidence.map((e) => ({ id: e.id, isRelevant: Boolean(e.is_relevant), status: e.status })),
    tests: tests.map((t) => ({ id: t.id, result: t.result, integrationFailing: Boolean(t.integration_failing) })),
  };
}
