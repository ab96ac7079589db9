// The links of program records (people, entities, tickets, risks, requirement and control
// mappings) as stored IDs, read for a whole kind at once and replaced in bulk: what a program
// document's apply and export of evidence, tests and findings need (src/domain/*/program.ts).
// Every statement covers many records; ID lists are cut into chunks that fit both engines.
import type { Kysely } from 'kysely';
import type { Db } from '../connect.ts';
import type { ArtifactType, Database, SubjectType } from '../schema.ts';
import { bulkInsert, type Row, type TableName } from '../bulk-insert.ts';

type Q = Kysely<Database>;

/** IDs per `in (...)` list: far below both engines' bind parameter limits. */
export const ID_CHUNK = 1000;

export function chunks<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface PersonLinkRow {
  subjectId: string;
  personId: string;
  role: 'assignee' | 'approver';
  isPrimary: boolean;
  position: number;
}

export interface SubjectLinks {
  people: PersonLinkRow[];
  entities: { subjectId: string; entityId: string }[];
  tickets: { subjectId: string; ticketKey: string; source: string; url: string }[];
  risks: { subjectId: string; riskId: string }[];
}

/** The people, entities, tickets and risks linked to every subject of one type, in list order (people by position, then email). */
export async function readSubjectLinks(db: Q, organizationId: string, subjectType: SubjectType): Promise<SubjectLinks> {
  const org = organizationId;
  const [people, entities, tickets, risks] = await Promise.all([
    db
      .selectFrom('subject_people as sp')
      .innerJoin('people as p', 'p.id', 'sp.person_id')
      .select(['sp.subject_id', 'sp.person_id', 'sp.role', 'sp.is_primary', 'sp.position'])
      .where('sp.organization_id', '=', org)
      .where('sp.subject_type', '=', subjectType)
      .orderBy('sp.subject_id')
      .orderBy('sp.position')
      .orderBy('p.email')
      .execute(),
    db
      .selectFrom('subject_entities')
      .select(['subject_id', 'entity_id'])
      .where('organization_id', '=', org)
      .where('subject_type', '=', subjectType)
      .execute(),
    db
      .selectFrom('tickets')
      .select(['subject_id', 'ticket_key', 'source', 'url'])
      .where('organization_id', '=', org)
      .where('subject_type', '=', subjectType)
      .orderBy('ticket_key')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('risk_links')
      .select(['subject_id', 'risk_id'])
      .where('organization_id', '=', org)
      .where('subject_type', '=', subjectType)
      .execute(),
  ]);
  return {
    people: people.map((r) => ({
      subjectId: r.subject_id,
      personId: r.person_id,
      role: r.role,
      isPrimary: Boolean(r.is_primary),
      position: Number(r.position),
    })),
    entities: entities.map((r) => ({ subjectId: r.subject_id, entityId: r.entity_id })),
    tickets: tickets.map((r) => ({ subjectId: r.subject_id, ticketKey: r.ticket_key, source: r.source, url: r.url })),
    risks: risks.map((r) => ({ subjectId: r.subject_id, riskId: r.risk_id })),
  };
}

export interface MappingLinks {
  requirements: { artifactId: string; requirementId: string }[];
  controls: { artifactId: string; controlId: string }[];
}

/** The requirements and controls every artifact of one type is mapped to. */
export async function readMappingLinks(db: Q, organizationId: string, artifactType: ArtifactType): Promise<MappingLinks> {
  const [requirements, controls] = await Promise.all([
    db
      .selectFrom('artifact_requirements')
      .select(['artifact_id', 'requirement_id'])
      .where('organization_id', '=', organizationId)
      .where('artifact_type', '=', artifactType)
      .execute(),
    db
      .selectFrom('control_artifacts')
      .select(['artifact_id', 'control_id'])
      .where('organization_id', '=', organizationId)
      .where('artifact_type', '=', artifactType)
      .execute(),
  ]);
  return {
    requirements: requirements.map((r) => ({ artifactId: r.artifact_id, requirementId: r.requirement_id })),
    controls: controls.map((r) => ({ artifactId: r.artifact_id, controlId: r.control_id })),
  };
}

export type LinkTable = 'subject_people' | 'subject_entities' | 'tickets' | 'risk_links';

/** Deletes the links of `table` hanging from the given subjects (all roles of people). */
export async function deleteSubjectLinks(
  db: Q,
  organizationId: string,
  table: LinkTable,
  subjectType: SubjectType,
  subjectIds: readonly string[],
): Promise<void> {
  for (const ids of chunks(subjectIds)) {
    await db
      .deleteFrom(table)
      .where('organization_id', '=', organizationId)
      .where('subject_type', '=', subjectType)
      .where('subject_id', 'in', ids)
      .execute();
  }
}

/** Deletes the requirement or control mappings of the given artifacts. */
export async function deleteMappings(
  db: Q,
  organizationId: string,
  table: 'artifact_requirements' | 'control_artifacts',
  artifactType: ArtifactType,
  artifactIds: readonly string[],
): Promise<void> {
  for (const ids of chunks(artifactIds)) {
    await db
      .deleteFrom(table)
      .where('organization_id', '=', organizationId)
      .where('artifact_type', '=', artifactType)
      .where('artifact_id', 'in', ids)
      .execute();
  }
}

/** Deletes rows of a child table by a parent ID column (attachments, resources, history…). */
export async function deleteChildren(
  db: Q,
  organizationId: string,
  table: 'attachments' | 'evidence_tests' | 'test_applications' | 'test_resources' | 'test_history' | 'vulnerability_resources' | 'custom_field_values',
  column: 'evidence_id' | 'test_id' | 'vulnerability_id' | 'subject_id',
  parentIds: readonly string[],
  extra?: (q: any) => any,
): Promise<void> {
  for (const ids of chunks(parentIds)) {
    let q = (db as Kysely<any>).deleteFrom(table).where('organization_id', '=', organizationId).where(column, 'in', ids);
    if (extra) q = extra(q);
    await q.execute();
  }
}

/** Deletes rows of a record table by ID. */
export async function deleteRecords(
  db: Q,
  organizationId: string,
  table: 'evidence' | 'tests' | 'vulnerabilities',
  ids: readonly string[],
): Promise<void> {
  for (const part of chunks(ids)) {
    await (db as Kysely<any>).deleteFrom(table).where('organization_id', '=', organizationId).where('id', 'in', part).execute();
  }
}

/** Inserts rows in as few statements as the engine allows, inside the transaction `trx`. */
export async function insertRows<T extends TableName>(db: Db, trx: Q, table: T, rows: readonly Row<T>[]): Promise<void> {
  if (rows.length > 0) await bulkInsert(db, table, rows, { executor: trx });
}

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
