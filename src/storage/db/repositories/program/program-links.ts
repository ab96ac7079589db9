// Link rows the program kinds read and replace per record: people (assignees, approvers),
// entities, risks and tickets hanging from a subject, and the control ↔ requirement ↔ artifact
// mappings. Read whole per organization and subject type; replaced for the records that changed.
import type { Kysely } from 'kysely';
import type { Database, SubjectType } from '../../schema.ts';
import type { Db } from '../../connect.ts';
import { deleteWhereIn, insertRows } from './program-writes.ts';
import type { Row } from '../../bulk-insert.ts';
import { idChunks } from '../../id-chunks.ts';

type Q = Kysely<Database>;

const push = <V>(map: Map<string, V[]>, key: string, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Entity IDs of each subject of the type. */
export async function entitiesBySubject(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('subject_entities')
    .select(['subject_id', 'entity_id'])
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) push(out, r.subject_id, r.entity_id);
  return out;
}

/** Risk IDs of each subject of the type. */
export async function risksBySubject(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('risk_links')
    .select(['subject_id', 'risk_id'])
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) push(out, r.subject_id, r.risk_id);
  return out;
}

export interface PersonLink {
  personId: string;
  role: 'assignee' | 'approver';
  isPrimary: boolean;
}

/** Assignees and approvers of each subject of the type, in their order. */
export async function peopleBySubject(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, PersonLink[]>> {
  const rows = await db
    .selectFrom('subject_people')
    .select(['subject_id', 'person_id', 'role', 'is_primary'])
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .orderBy('subject_id')
    .orderBy('role')
    .orderBy('position')
    .execute();
  const out = new Map<string, PersonLink[]>();
  for (const r of rows) push(out, r.subject_id, { personId: r.person_id, role: r.role, isPrimary: Boolean(r.is_primary) });
  return out;
}

export interface TicketLink {
  ticketId: string;
  source: string;
  url: string;
}

/** Tickets of each subject of the type, in the order they were stored (by row ID). */
export async function ticketsBySubject(db: Q, organizationId: string, subjectType: SubjectType): Promise<Map<string, TicketLink[]>> {
  const rows = await db
    .selectFrom('tickets')
    .select(['id', 'subject_id', 'ticket_key', 'source', 'url'])
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .orderBy('subject_id')
    .orderBy('id')
    .execute();
  const out = new Map<string, TicketLink[]>();
  for (const r of rows) push(out, r.subject_id, { ticketId: r.ticket_key, source: r.source, url: r.url });
  return out;
}

/** Requirement IDs each control meets. */
export async function requirementsByControl(db: Q, organizationId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('control_requirements')
    .select(['control_id', 'requirement_id'])
    .where('organization_id', '=', organizationId)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) push(out, r.control_id, r.requirement_id);
  return out;
}

/** Requirement IDs each artifact of the type meets. */
export async function requirementsByArtifact(
  db: Q,
  organizationId: string,
  type: 'policy' | 'evidence' | 'test',
): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('artifact_requirements')
    .select(['artifact_id', 'requirement_id'])
    .where('organization_id', '=', organizationId)
    .where('artifact_type', '=', type)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) push(out, r.artifact_id, r.requirement_id);
  return out;
}

/** Control IDs each artifact of the type is linked to. */
export async function controlsByArtifact(
  db: Q,
  organizationId: string,
  type: 'policy' | 'evidence' | 'test',
): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('control_artifacts')
    .select(['artifact_id', 'control_id'])
    .where('organization_id', '=', organizationId)
    .where('artifact_type', '=', type)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) push(out, r.artifact_id, r.control_id);
  return out;
}

/** What hangs from subjects of one type, replaced for the given subjects (none given: nothing replaced). */
export interface SubjectLinks {
  entities?: Map<string, string[]>;
  risks?: Map<string, string[]>;
  /** assignees and approvers together: both are replaced */
  people?: Map<string, PersonLink[]>;
  tickets?: Map<string, TicketLink[]>;
}

/**
 * Replaces the links of each listed subject: deletes its rows of each kind given, then inserts the
 * new ones in bulk. `ticketIds` makes the tickets' row IDs (stable per subject and place).
 */
export async function replaceSubjectLinks(
  db: Db,
  trx: Q,
  organizationId: string,
  subjectType: SubjectType,
  links: SubjectLinks,
  ticketId: (subjectId: string, index: number) => string,
  /** subjects created in this transaction: they have no links to delete */
  fresh: ReadonlySet<string> = new Set(),
): Promise<void> {
  const org = organizationId;
  const old = (m: Map<string, unknown>) => [...m.keys()].filter((id) => !fresh.has(id));
  if (links.entities && links.entities.size > 0) {
    await deleteWhereIn(trx, 'subject_entities', org, 'subject_id', old(links.entities), subjectType);
    const rows: Row<'subject_entities'>[] = [];
    for (const [subject, ids] of links.entities)
      for (const entityId of ids) rows.push({ organization_id: org, subject_type: subjectType, subject_id: subject, entity_id: entityId });
    await insertRows(db, trx, 'subject_entities', rows);
  }
  if (links.risks && links.risks.size > 0) {
    await deleteWhereIn(trx, 'risk_links', org, 'subject_id', old(links.risks), subjectType);
    const rows: Row<'risk_links'>[] = [];
    for (const [subject, ids] of links.risks)
      for (const riskId of ids) rows.push({ organization_id: org, risk_id: riskId, subject_type: subjectType, subject_id: subject });
    await insertRows(db, trx, 'risk_links', rows);
  }
  if (links.people && links.people.size > 0) {
    await deleteWhereIn(trx, 'subject_people', org, 'subject_id', old(links.people), subjectType);
    const rows: Row<'subject_people'>[] = [];
    for (const [subject, people] of links.people) {
      const positions = { assignee: 0, approver: 0 };
      for (const p of people)
        rows.push({
          organization_id: org,
          subject_type: subjectType,
          subject_id: subject,
          person_id: p.personId,
          role: p.role,
          is_primary: p.isPrimary,
          position: positions[p.role]++,
        });
    }
    await insertRows(db, trx, 'subject_people', rows);
  }
  if (links.tickets && links.tickets.size > 0) {
    await deleteWhereIn(trx, 'tickets', org, 'subject_id', old(links.tickets), subjectType);
    const rows: Row<'tickets'>[] = [];
    for (const [subject, tickets] of links.tickets)
      tickets.forEach((t, i) => {
        rows.push({
          id: ticketId(subject, i),
          organization_id: org,
          subject_type: subjectType,
          subject_id: subject,
          ticket_key: t.ticketId,
          source: t.source,
          url: t.url,
        });
      });
    await insertRows(db, trx, 'tickets', rows);
  }
}

/** Replaces the requirement mappings of the given controls. */
export async function replaceControlRequirements(
  db: Db,
  trx: Q,
  organizationId: string,
  byControl: Map<string, string[]>,
  fresh: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (byControl.size === 0) return;
  await deleteWhereIn(
    trx,
    'control_requirements',
    organizationId,
    'control_id',
    [...byControl.keys()].filter((id) => !fresh.has(id)),
  );
  const rows: Row<'control_requirements'>[] = [];
  for (const [control, ids] of byControl)
    for (const requirementId of ids) rows.push({ organization_id: organizationId, control_id: control, requirement_id: requirementId });
  await insertRows(db, trx, 'control_requirements', rows);
}

/** Replaces the requirement mappings and control links of the given artifacts of one type. */
export async function replaceArtifactMappings(
  db: Db,
  trx: Q,
  organizationId: string,
  type: 'policy' | 'evidence' | 'test',
  mappings: { requirements?: Map<string, string[]>; controls?: Map<string, string[]> },
  fresh: ReadonlySet<string> = new Set(),
): Promise<void> {
  const org = organizationId;
  /** Deletes the links of the artifacts in `links` (all but the fresh ones, which have none yet) and inserts `links`. */
  const replace = async <T extends 'artifact_requirements' | 'control_artifacts'>(
    table: T,
    links: Map<string, string[]> | undefined,
    row: (artifactId: string, otherId: string) => Row<T>,
  ) => {
    if (!links || links.size === 0) return;
    const ids = [...links.keys()].filter((id) => !fresh.has(id));
    for (const chunk of idChunks(ids))
      await trx
        .deleteFrom(table as 'control_artifacts')
        .where('organization_id', '=', org)
        .where('artifact_type', '=', type)
        .where('artifact_id', 'in', chunk)
        .execute();
    const rows: Row<T>[] = [];
    for (const [artifact, others] of links) for (const other of others) rows.push(row(artifact, other));
    await insertRows(db, trx, table, rows);
  };
  await replace('artifact_requirements', mappings.requirements, (artifact, requirementId) => ({
    organization_id: org,
    artifact_type: type,
    artifact_id: artifact,
    requirement_id: requirementId,
  }));
  await replace('control_artifacts', mappings.controls, (artifact, controlId) => ({
    organization_id: org,
    control_id: controlId,
    artifact_type: type,
    artifact_id: artifact,
  }));
}

/** Deletes everything that hangs from the given subjects of one type: people, entities, risks and tickets. */
export async function deleteSubjectLinks(
  trx: Q,
  organizationId: string,
  subjectType: SubjectType,
  subjectIds: readonly string[],
): Promise<void> {
  for (const table of ['subject_people', 'subject_entities', 'risk_links', 'tickets'] as const)
    await deleteWhereIn(trx, table, organizationId, 'subject_id', subjectIds, subjectType);
}

/** Deletes the requirement mappings and artifact links of the given controls. */
export async function deleteControlMappings(trx: Q, organizationId: string, controlIds: readonly string[]): Promise<void> {
  await deleteWhereIn(trx, 'control_requirements', organizationId, 'control_id', controlIds);
  await deleteWhereIn(trx, 'control_artifacts', organizationId, 'control_id', controlIds);
}
