// The names the get shapes of changed evidence, tests and findings show of the records they link
// to (people, entities, controls, requirements, risks, tests), read once per apply: the program
// kinds build those shapes in memory for their events (src/domain/artifacts/program-shapes.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

/** What the get shapes of changed records show of the records they link to, read once per apply. */
export interface NameLookups {
  people: Map<string, { name: string; email: string }>;
  entities: Map<string, string>;
  controls: Map<string, { code: string; name: string }>;
  requirements: Map<string, { frameworkId: string; frameworkName: string; code: string; name: string }>;
  risks: Map<string, string>;
  tests: Map<string, { name: string; result: string; integrationFailing: boolean }>;
}

export async function loadNameLookups(db: Q, organizationId: string): Promise<NameLookups> {
  const org = organizationId;
  const [people, entities, controls, requirements, risks, tests] = await Promise.all([
    db.selectFrom('people').select(['id', 'name', 'email']).where('organization_id', '=', org).execute(),
    db.selectFrom('entities').select(['id', 'name']).where('organization_id', '=', org).execute(),
    db.selectFrom('controls').select(['id', 'code', 'name']).where('organization_id', '=', org).execute(),
    db
      .selectFrom('requirements as r')
      .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
      .select(['r.id', 'r.code', 'r.name', 'f.id as framework_id', 'f.name as framework_name'])
      .where('r.organization_id', '=', org)
      .execute(),
    db.selectFrom('risks').select(['id', 'name']).where('organization_id', '=', org).execute(),
    db.selectFrom('tests').select(['id', 'name', 'result', 'integration_failing']).where('organization_id', '=', org).execute(),
  ]);
  return {
    people: new Map(people.map((r) => [r.id, { name: r.name, email: r.email }])),
    entities: new Map(entities.map((r) => [r.id, r.name])),
    controls: new Map(controls.map((r) => [r.id, { code: r.code, name: r.name }])),
    requirements: new Map(
      requirements.map((r) => [r.id, { frameworkId: r.framework_id, frameworkName: r.framework_name, code: r.code, name: r.name }]),
    ),
    risks: new Map(risks.map((r) => [r.id, r.name])),
    tests: new Map(tests.map((r) => [r.id, { name: r.name, result: r.result, integrationFailing: Boolean(r.integration_failing) }])),
  };
}

/** The framework of every requirement of the organization. */
export async function requirementFrameworks(db: Q, organizationId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('requirements').select(['id', 'framework_id']).where('organization_id', '=', organizationId).execute();
  return new Map(rows.map((r) => [r.id, r.framework_id]));
}
