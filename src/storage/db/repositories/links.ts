// Shared loaders and filters for the polymorphic links that many resources carry: people
// (assignees, approvers), entities, tickets, risks, and the artifact mappings to frameworks,
// requirements and controls. Every loader answers for a whole organization (lists) or for given
// subject IDs (get-one, or a bulk caller's many) in one query per chunk of IDs (id-chunks.ts),
// never one query per row.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ArtifactType, Database, SubjectType } from '../schema.ts';
import { chunked } from '../id-chunks.ts';

// The wire shapes these loaders fill are defined once, as schemas, in the domain.
import type {
  Assignee,
  Entity,
  MappedControl,
  MappedFramework,
  MappedRequirement,
  MappedRisk,
  PersonStamp,
} from '../../../shared/sub-objects.ts';

export type { Assignee, Entity, MappedControl, MappedFramework, MappedRequirement, MappedRisk, PersonStamp };

type Q = Kysely<Database>;

/** A stored ticket; each resource shapes it for the wire (`ticketId` or `id`). */
export interface TicketRow {
  ticketKey: string;
  source: string;
  url: string;
}

/**
 * The rows of a loader's query for every subject (no IDs) or for the given IDs, a chunk of IDs a
 * statement: every subject's rows come from one statement, so each subject's stay in their order.
 */
function forSubjects<R>(ids: readonly string[] | undefined, read: (ids?: string[]) => Promise<R[]>): Promise<R[]> {
  return ids ? chunked(ids, read) : read();
}

/** Values of rows by a key of theirs, in row order. */
export function group<R, V>(rows: readonly R[], key: (r: R) => string, value: (r: R) => V): Map<string, V[]> {
  const map = new Map<string, V[]>();
  for (const row of rows) {
    const k = key(row);
    let list = map.get(k);
    if (!list) map.set(k, (list = []));
    list.push(value(row));
  }
  return map;
}

/** People of the organization by ID, for authorship stamps (addedBy, lastModifiedBy…). */
export async function loadPeople(db: Q, organizationId: string): Promise<Map<string, PersonStamp>> {
  const rows = await db.selectFrom('people').select(['id', 'name', 'email']).where('organization_id', '=', organizationId).execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, email: r.email }]));
}

/** Assignees or approvers of every subject of one type (or of the given IDs), in their order. */
export async function loadSubjectPeople(
  db: Q,
  organizationId: string,
  subjectType: SubjectType,
  role: 'assignee' | 'approver',
  subjectIds?: string[],
): Promise<Map<string, Assignee[]>> {
  const rows = await forSubjects(subjectIds, (ids) => {
    let query = db
      .selectFrom('subject_people as sp')
      .innerJoin('people as p', 'p.id', 'sp.person_id')
      .select(['sp.subject_id', 'p.name', 'p.email', 'sp.is_primary'])
      .where('sp.organization_id', '=', organizationId)
      .where('sp.subject_type', '=', subjectType)
      .where('sp.role', '=', role);
    if (ids) query = query.where('sp.subject_id', 'in', ids);
    return query.orderBy('sp.subject_id').orderBy('sp.position').orderBy('p.email').execute();
  });
  return group(
    rows,
    (r) => r.subject_id,
    (r) => ({ name: r.name, email: r.email, isPrimary: Boolean(r.is_primary) }),
  );
}

/** Entities linked to every subject of one type (or of the given IDs), ordered by entity name. */
export async function loadSubjectEntities(
  db: Q,
  organizationId: string,
  subjectType: SubjectType,
  subjectIds?: string[],
): Promise<Map<string, Entity[]>> {
  const rows = await forSubjects(subjectIds, (ids) => {
    let query = db
      .selectFrom('subject_entities as se')
      .innerJoin('entities as e', 'e.id', 'se.entity_id')
      .select(['se.subject_id', 'e.id', 'e.name'])
      .where('se.organization_id', '=', organizationId)
      .where('se.subject_type', '=', subjectType);
    if (ids) query = query.where('se.subject_id', 'in', ids);
    return query.orderBy('e.name').orderBy('e.id').execute();
  });
  return group(
    rows,
    (r) => r.subject_id,
    (r) => ({ entityId: r.id, entityName: r.name }),
  );
}

export async function loadTickets(db: Q, organizationId: string, subjectType: SubjectType, subjectIds?: string[]) {
  const rows = await forSubjects(subjectIds, (ids) => {
    let query = db
      .selectFrom('tickets')
      .select(['subject_id', 'ticket_key', 'source', 'url'])
      .where('organization_id', '=', organizationId)
      .where('subject_type', '=', subjectType);
    if (ids) query = query.where('subject_id', 'in', ids);
    return query.orderBy('ticket_key').execute();
  });
  return group(
    rows,
    (r) => r.subject_id,
    (r): TicketRow => ({ ticketKey: r.ticket_key, source: r.source, url: r.url }),
  );
}

/** How many tickets each subject has (the `ticketsCount` list field). */
export async function countTickets(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tickets')
    .select((eb) => ['subject_id', eb.fn.countAll<number>().as('n')])
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .groupBy('subject_id')
    .execute();
  return new Map(rows.map((r) => [r.subject_id, Number(r.n)]));
}

export async function loadRisks(db: Q, organizationId: string, subjectType: SubjectType, subjectIds?: string[]) {
  const rows = await forSubjects(subjectIds, (ids) => {
    let query = db
      .selectFrom('risk_links as rl')
      .innerJoin('risks as r', 'r.id', 'rl.risk_id')
      .select(['rl.subject_id', 'r.id', 'r.name'])
      .where('rl.organization_id', '=', organizationId)
      .where('rl.subject_type', '=', subjectType);
    if (ids) query = query.where('rl.subject_id', 'in', ids);
    return query.orderBy('r.name').orderBy('r.id').execute();
  });
  return group(
    rows,
    (r) => r.subject_id,
    (r): MappedRisk => ({ riskId: r.id, riskName: r.name }),
  );
}

export interface ArtifactMappings {
  frameworks: Map<string, MappedFramework[]>;
  requirements: Map<string, MappedRequirement[]>;
  controls: Map<string, MappedControl[]>;
}

/** A requirement mapping row (requirement joined with its framework) as the read API shows it. */
export function toMappedRequirement(r: {
  framework_id: string;
  framework_name: string;
  requirement_id: string;
  code: string;
  name: string;
}): MappedRequirement {
  return {
    frameworkId: r.framework_id,
    frameworkName: r.framework_name,
    requirementId: r.requirement_id,
    requirementCode: r.code,
    requirementName: r.name,
  };
}

/**
 * The frameworks, requirements and controls every artifact of one type (or the given IDs) is
 * mapped to. Frameworks are derived from the requirements, each listed once.
 */
export async function loadArtifactMappings(
  db: Q,
  organizationId: string,
  artifactType: ArtifactType,
  artifactIds?: string[],
): Promise<ArtifactMappings> {
  const [reqRows, ctlRows] = await Promise.all([
    forSubjects(artifactIds, (ids) => {
      let query = db
        .selectFrom('artifact_requirements as ar')
        .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
        .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
        .select(['ar.artifact_id', 'f.id as framework_id', 'f.name as framework_name', 'r.id as requirement_id', 'r.code', 'r.name'])
        .where('ar.organization_id', '=', organizationId)
        .where('ar.artifact_type', '=', artifactType);
      if (ids) query = query.where('ar.artifact_id', 'in', ids);
      return query.orderBy('f.name').orderBy('r.code').orderBy('r.id').execute();
    }),
    forSubjects(artifactIds, (ids) => {
      let query = db
        .selectFrom('control_artifacts as ca')
        .innerJoin('controls as c', 'c.id', 'ca.control_id')
        .select(['ca.artifact_id', 'c.id', 'c.code', 'c.name'])
        .where('ca.organization_id', '=', organizationId)
        .where('ca.artifact_type', '=', artifactType);
      if (ids) query = query.where('ca.artifact_id', 'in', ids);
      return query.orderBy('c.code').orderBy('c.id').execute();
    }),
  ]);
  const requirements = group(reqRows, (r) => r.artifact_id, toMappedRequirement);
  const frameworks = new Map<string, MappedFramework[]>();
  for (const [artifactId, reqs] of requirements) {
    const seen = new Map<string, MappedFramework>();
    for (const r of reqs)
      if (!seen.has(r.frameworkId)) seen.set(r.frameworkId, { frameworkId: r.frameworkId, frameworkName: r.frameworkName });
    frameworks.set(artifactId, [...seen.values()]);
  }
  const controls = group(
    ctlRows,
    (r) => r.artifact_id,
    (r): MappedControl => ({ controlId: r.id, controlCode: r.code, controlName: r.name }),
  );
  return { frameworks, requirements, controls };
}

// ---- Filters: `where` conditions that keep a subject when one of its links matches. ----

type AnyEb = ExpressionBuilder<any, any>;

/** The subject has a person in `role` whose email is one of `emails` (case-insensitive). */
export function hasPerson(
  eb: AnyEb,
  idColumn: string,
  organizationId: string,
  subjectType: SubjectType,
  role: 'assignee' | 'approver',
  emails: string[],
) {
  const lowered = emails.map((e) => e.toLowerCase());
  return eb.exists(
    eb
      .selectFrom('subject_people as fsp')
      .innerJoin('people as fp', 'fp.id', 'fsp.person_id')
      .select('fsp.subject_id')
      .where('fsp.organization_id', '=', organizationId)
      .where('fsp.subject_type', '=', subjectType)
      .where('fsp.role', '=', role)
      .whereRef('fsp.subject_id', '=', eb.ref(idColumn))
      .where((inner) => inner.fn('lower', ['fp.email']), 'in', lowered),
  );
}

/** The subject is linked to one of `entityIds`. */
export function hasEntity(eb: AnyEb, idColumn: string, organizationId: string, subjectType: SubjectType, entityIds: string[]) {
  return eb.exists(
    eb
      .selectFrom('subject_entities as fse')
      .select('fse.subject_id')
      .where('fse.organization_id', '=', organizationId)
      .where('fse.subject_type', '=', subjectType)
      .whereRef('fse.subject_id', '=', eb.ref(idColumn))
      .where('fse.entity_id', 'in', entityIds),
  );
}

/** The artifact is mapped (through a requirement) to one of `frameworkIds`. */
export function mappedToFramework(eb: AnyEb, idColumn: string, organizationId: string, artifactType: ArtifactType, frameworkIds: string[]) {
  return eb.exists(
    eb
      .selectFrom('artifact_requirements as far')
      .innerJoin('requirements as fr', 'fr.id', 'far.requirement_id')
      .select('far.artifact_id')
      .where('far.organization_id', '=', organizationId)
      .where('far.artifact_type', '=', artifactType)
      .whereRef('far.artifact_id', '=', eb.ref(idColumn))
      .where('fr.framework_id', 'in', frameworkIds),
  );
}

/** The artifact is mapped to one of `controlIds`. */
export function mappedToControl(eb: AnyEb, idColumn: string, organizationId: string, artifactType: ArtifactType, controlIds: string[]) {
  return eb.exists(
    eb
      .selectFrom('control_artifacts as fca')
      .select('fca.artifact_id')
      .where('fca.organization_id', '=', organizationId)
      .where('fca.artifact_type', '=', artifactType)
      .whereRef('fca.artifact_id', '=', eb.ref(idColumn))
      .where('fca.control_id', 'in', controlIds),
  );
}
