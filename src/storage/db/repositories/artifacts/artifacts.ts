// What policies and evidence have in common in storage: the same list filters and the same
// columns (department, relevance, next review, gap status, cadence, authorship). Both
// repositories select their rows through `listArtifactRows`, so every filter is written once.
import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../schema.ts';
import { hasEntity, hasPerson, mappedToControl, mappedToFramework } from '../links.ts';

type Q = Kysely<Database>;
export type ArtifactTable = 'policies' | 'evidence';
export type ArtifactKind = 'policy' | 'evidence';

const KIND: Record<ArtifactTable, ArtifactKind> = { policies: 'policy', evidence: 'evidence' };

/** A list filter in storage terms. Values within one field combine as OR, fields as AND. */
export interface ArtifactFilter {
  /** only these records (a bulk reader's, such as an apply's created events; not a list parameter) */
  ids?: string[];
  status?: string[];
  frameworkIds?: string[];
  controlIds?: string[];
  entityIds?: string[];
  isRelevant?: boolean;
  assigneeEmails?: string[];
  approverEmails?: string[];
  /** department names, compared case-insensitively (Unicode lower case) */
  departments?: string[];
  /** also keep items without a department */
  withoutDepartment?: boolean;
  /** inclusive bounds; an item without a next review date never matches a bound */
  nextReviewAtFrom?: number;
  nextReviewAtTo?: number;
}

/** The columns policies and evidence share, converted to domain values. */
export interface ArtifactCommon {
  id: string;
  name: string;
  status: string;
  department: string | null;
  isRelevant: boolean;
  notRelevantReason: string | null;
  nextReviewDate: number | null;
  gapStatus: string;
  effortEstimate: string | null;
  recurrence: string | null;
  source: string | null;
  requirementText: string | null;
  addedBy: string | null;
  addedOn: number;
  lastModifiedBy: string | null;
  modifiedOn: number | null;
}

type CommonColumns = Pick<
  Selectable<Database['policies']>,
  | 'id'
  | 'name'
  | 'status'
  | 'department'
  | 'is_relevant'
  | 'not_relevant_reason'
  | 'next_review_date'
  | 'gap_status'
  | 'effort_estimate'
  | 'recurrence'
  | 'source'
  | 'requirement_text'
  | 'added_by'
  | 'added_on'
  | 'last_modified_by'
  | 'modified_on'
>;

export const nullableMs = (value: number | null): number | null => (value === null ? null : Number(value));

export function commonColumns(r: CommonColumns): ArtifactCommon {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    department: r.department,
    isRelevant: Boolean(r.is_relevant),
    notRelevantReason: r.not_relevant_reason,
    nextReviewDate: nullableMs(r.next_review_date),
    gapStatus: r.gap_status,
    effortEstimate: r.effort_estimate,
    recurrence: r.recurrence,
    source: r.source,
    requirementText: r.requirement_text,
    addedBy: r.added_by,
    addedOn: Number(r.added_on),
    lastModifiedBy: r.last_modified_by,
    modifiedOn: nullableMs(r.modified_on),
  };
}

/**
 * The stored spellings of the departments asked for. Matching is case-insensitive with
 * JavaScript's Unicode lower case, done here rather than with SQL `lower()` (ASCII-only in
 * SQLite) so both engines agree; the rows are then filtered with an exact `in`.
 */
async function storedDepartments(db: Q, table: ArtifactTable, organizationId: string, names: string[]): Promise<string[]> {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const rows = await (db as Kysely<any>)
    .selectFrom(table)
    .select('department')
    .distinct()
    .where('organization_id', '=', organizationId)
    .where('department', 'is not', null)
    .execute();
  return rows.map((r) => r.department as string).filter((d) => wanted.has(d.toLowerCase()));
}

/**
 * The rows of one artifact table matching `filter`, ordered by name then ID. One statement, plus
 * one when departments are filtered by name.
 */
export async function listArtifactRows<T extends ArtifactTable>(
  db: Q,
  table: T,
  organizationId: string,
  filter: ArtifactFilter,
): Promise<Selectable<Database[T]>[]> {
  const kind = KIND[table];
  const org = organizationId;
  const named = filter.departments?.length ? await storedDepartments(db, table, org, filter.departments) : [];
  let query = (db as Kysely<any>).selectFrom(`${table} as a`).selectAll().where('a.organization_id', '=', org);
  const f = filter;
  if (f.ids) query = query.where('a.id', 'in', f.ids.length > 0 ? f.ids : ['']);
  if (f.status?.length) query = query.where('a.status', 'in', f.status);
  if (f.isRelevant !== undefined) query = query.where('a.is_relevant', '=', f.isRelevant);
  if (f.nextReviewAtFrom !== undefined) query = query.where('a.next_review_date', '>=', f.nextReviewAtFrom);
  if (f.nextReviewAtTo !== undefined) query = query.where('a.next_review_date', '<=', f.nextReviewAtTo);
  if (f.departments?.length || f.withoutDepartment) {
    query = query.where((eb) => {
      const alternatives = [];
      if (named.length > 0) alternatives.push(eb('a.department', 'in', named));
      if (f.withoutDepartment) alternatives.push(eb('a.department', 'is', null));
      return alternatives.length > 0 ? eb.or(alternatives) : sql<SqlBool>`1 = 0`;
    });
  }
  if (f.frameworkIds?.length) query = query.where((eb) => mappedToFramework(eb, 'a.id', org, kind, f.frameworkIds!));
  if (f.controlIds?.length) query = query.where((eb) => mappedToControl(eb, 'a.id', org, kind, f.controlIds!));
  if (f.entityIds?.length) query = query.where((eb) => hasEntity(eb, 'a.id', org, kind, f.entityIds!));
  if (f.assigneeEmails?.length) query = query.where((eb) => hasPerson(eb, 'a.id', org, kind, 'assignee', f.assigneeEmails!));
  if (f.approverEmails?.length) query = query.where((eb) => hasPerson(eb, 'a.id', org, kind, 'approver', f.approverEmails!));
  return (await query.orderBy('a.name').orderBy('a.id').execute()) as Selectable<Database[T]>[];
}

/** One row of an artifact table by ID, only within the organization. */
export async function findArtifactRow<T extends ArtifactTable>(
  db: Q,
  table: T,
  organizationId: string,
  id: string,
): Promise<Selectable<Database[T]> | undefined> {
  return (await (db as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()) as Selectable<Database[T]> | undefined;
}

/** The list and get-one reads of one artifact table, each row mapped by `toRow`. */
export function artifactReads<T extends ArtifactTable, R>(table: T, toRow: (r: Selectable<Database[T]>) => R) {
  return {
    /** the records of the organization matching `filter`, ordered by name then ID */
    list: async (db: Q, organizationId: string, filter: ArtifactFilter): Promise<R[]> =>
      (await listArtifactRows(db, table, organizationId, filter)).map(toRow),
    /** one record by ID, only within the organization */
    find: async (db: Q, organizationId: string, id: string): Promise<R | undefined> => {
      const row = await findArtifactRow(db, table, organizationId, id);
      return row && toRow(row);
    },
  };
}

/** The file tables, each with the column naming its artifact and the date its files are ordered by. */
const FILE_TABLES = {
  policy_documents: { parent: 'policy_id', newest: 'added_on' },
  attachments: { parent: 'evidence_id', newest: 'evidence_date' },
} as const;

/** The files (rows) of one artifact, newest first (then by ID). */
export async function listFileRows<T extends keyof typeof FILE_TABLES>(
  db: Q,
  table: T,
  organizationId: string,
  artifactId: string,
): Promise<Selectable<Database[T]>[]> {
  const { parent, newest } = FILE_TABLES[table];
  return (await (db as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(parent, '=', artifactId)
    .orderBy(newest, 'desc')
    .orderBy('id')
    .execute()) as Selectable<Database[T]>[];
}

/** A file entry (policy document or evidence attachment) as both tables store it. */
export interface FileEntryRow {
  displayName: string;
  type: string;
  /** only for an external link a user added; never for a file the service hosts */
  url: string | null;
  note: string | null;
  addedBy: string | null;
  addedOn: number;
  updatedBy: string | null;
  updatedOn: number | null;
}

type FileColumns = Pick<
  Database['policy_documents'],
  'display_name' | 'type' | 'url' | 'note' | 'added_by' | 'added_on' | 'updated_by' | 'updated_on'
>;

/** `hosted`: the row is a file the service stores, whose link must never be given out. */
export function fileEntry(r: FileColumns, hosted = false): FileEntryRow {
  return {
    displayName: r.display_name,
    type: r.type,
    url: hosted ? null : r.url,
    note: r.note,
    addedBy: r.added_by,
    addedOn: Number(r.added_on),
    updatedBy: r.updated_by,
    updatedOn: nullableMs(r.updated_on),
  };
}
