// Shared loaders for the polymorphic links (people, entities) that many resources carry.
import type { Kysely } from 'kysely';
import type { Database, SubjectType } from '../schema.ts';

type Q = Kysely<Database>;

export interface PersonStamp {
  name: string;
  email: string;
}
export interface Entity {
  entityId: string;
  entityName: string;
}

/** People of the organization by ID, for authorship stamps (addedBy, lastModifiedBy…). */
export async function loadPeople(db: Q, organizationId: string): Promise<Map<string, PersonStamp>> {
  const rows = await db.selectFrom('people').select(['id', 'name', 'email']).where('organization_id', '=', organizationId).execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, email: r.email }]));
}

/** Entities linked to every subject of one type, ordered by entity name. */
export async function loadSubjectEntities(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, Entity[]>> {
  const rows = await db
    .selectFrom('subject_entities as se')
    .innerJoin('entities as e', 'e.id', 'se.entity_id')
    .select(['se.subject_id', 'e.id', 'e.name'])
    .where('se.organization_id', '=', organizationId)
    .where('se.subject_type', '=', subjectType)
    .orderBy('e.name')
    .orderBy('e.id')
    .execute();
  const bySubject = new Map<string, Entity[]>();
  for (const r of rows) {
    let list = bySubject.get(r.subject_id);
    if (!list) bySubject.set(r.subject_id, (list = []));
    list.push({ entityId: r.id, entityName: r.name });
  }
  return bySubject;
}
