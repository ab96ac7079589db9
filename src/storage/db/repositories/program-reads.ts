// Reads the program pipeline needs beside each kind's own (src/domain/program/).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

type Q = Kysely<Database>;

/** The IDs of every control and framework of the organization. */
export async function listControlAndFrameworkIds(db: Q, organizationId: string): Promise<{ controlIds: string[]; frameworkIds: string[] }> {
  const [controls, frameworks] = await Promise.all([
    db.selectFrom('controls').select('id').where('organization_id', '=', organizationId).execute(),
    db.selectFrom('frameworks').select('id').where('organization_id', '=', organizationId).execute(),
  ]);
  return { controlIds: controls.map((r) => r.id), frameworkIds: frameworks.map((r) => r.id) };
}

const CHUNK = 500;
async function chunked<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await read(ids.slice(i, i + CHUNK))));
  return out;
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
