// Controls in storage: the rows of the list and of get-one, the IDs matching the list filters.
// The stored data the compliance rule is applied to is read by compliance-inputs.ts, a control's
// requirements and mapped artifacts by control-mappings.ts.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../schema.ts';
import type { CONTROL_SCOPES, FUNCTION_GROUPINGS } from '../../../../shared/vocabulary.ts';
import { hasEntity, hasPerson } from '../links.ts';

type Q = Kysely<Database>;

export type FunctionGrouping = (typeof FUNCTION_GROUPINGS)[number];
export type ControlScope = (typeof CONTROL_SCOPES)[number];

export interface ControlRow {
  id: string;
  code: string;
  name: string;
  domain: string;
  functionGrouping: FunctionGrouping;
  scope: ControlScope;
  outOfScopeReason: string | null;
  markedOutOfScopeBy: string | null;
  addedBy: string | null;
  addedOn: number;
  lastModifiedBy: string | null;
  modifiedOn: number | null;
}

export interface ControlDetailRow extends ControlRow {
  description: string | null;
  questions: string[];
}

/** A list filter in storage terms. Values within one field combine as OR, fields as AND. */
export interface ControlFilter {
  entityIds?: string[];
  /** compared case-insensitively */
  assigneeEmails?: string[];
  /** compared case-insensitively (JavaScript's Unicode lower case, the same on both engines) */
  domains?: string[];
  functionGroupings?: string[];
  scopes?: string[];
}

const LIST_COLUMNS = [
  'c.id',
  'c.code',
  'c.name',
  'c.domain',
  'c.function_grouping',
  'c.scope',
  'c.out_of_scope_reason',
  'c.marked_out_of_scope_by',
  'c.added_by',
  'c.added_on',
  'c.last_modified_by',
  'c.modified_on',
] as const;

type ListColumns = Pick<
  Database['controls'],
  | 'id'
  | 'code'
  | 'name'
  | 'domain'
  | 'function_grouping'
  | 'scope'
  | 'out_of_scope_reason'
  | 'marked_out_of_scope_by'
  | 'added_by'
  | 'added_on'
  | 'last_modified_by'
  | 'modified_on'
>;

function toControlRow(r: ListColumns): ControlRow {
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    domain: r.domain,
    functionGrouping: r.function_grouping as FunctionGrouping,
    scope: r.scope as ControlScope,
    outOfScopeReason: r.out_of_scope_reason,
    markedOutOfScopeBy: r.marked_out_of_scope_by,
    addedBy: r.added_by,
    addedOn: Number(r.added_on),
    lastModifiedBy: r.last_modified_by,
    modifiedOn: r.modified_on === null ? null : Number(r.modified_on),
  };
}

/**
 * The stored spellings of the domains asked for. SQL `lower()` folds only ASCII in SQLite, so
 * the case-insensitive match is done here on the organization's few distinct domains and the
 * rows are then selected with an exact `in`.
 */
async function storedDomains(db: Q, organizationId: string, names: string[]): Promise<string[]> {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const rows = await db.selectFrom('controls').select('domain').distinct().where('organization_id', '=', organizationId).execute();
  return rows.map((r) => r.domain).filter((d) => wanted.has(d.toLowerCase()));
}

/** Every control of the organization (the list's columns), unordered. */
export async function listControlRows(db: Q, organizationId: string): Promise<ControlRow[]> {
  const rows = await db.selectFrom('controls as c').select(LIST_COLUMNS).where('c.organization_id', '=', organizationId).execute();
  return rows.map(toControlRow);
}

/** IDs of the controls matching `filter`. One statement, plus one when domains are filtered. */
export async function listControlIds(db: Q, organizationId: string, filter: ControlFilter): Promise<string[]> {
  const org = organizationId;
  const f = filter;
  let domains: string[] | undefined;
  if (f.domains?.length) {
    domains = await storedDomains(db, org, f.domains);
    if (domains.length === 0) return [];
  }
  let query = db.selectFrom('controls as c').select('c.id').where('c.organization_id', '=', org);
  if (domains) query = query.where('c.domain', 'in', domains);
  if (f.functionGroupings?.length) query = query.where('c.function_grouping', 'in', f.functionGroupings);
  if (f.scopes?.length) query = query.where('c.scope', 'in', f.scopes);
  if (f.entityIds?.length) query = query.where((eb) => hasEntity(eb, 'c.id', org, 'control', f.entityIds!));
  if (f.assigneeEmails?.length) query = query.where((eb) => hasPerson(eb, 'c.id', org, 'control', 'assignee', f.assigneeEmails!));
  const rows = await query.execute();
  return rows.map((r) => r.id);
}

/** One control by ID, only within the organization. */
export async function findControl(db: Q, organizationId: string, id: string): Promise<ControlDetailRow | undefined> {
  const row = await db
    .selectFrom('controls')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toControlDetailRow(row);
}

const toControlDetailRow = (row: Selectable<Database['controls']>): ControlDetailRow => ({
  ...toControlRow(row),
  description: row.description,
  questions: JSON.parse(row.questions) as string[],
});

/** Controls per statement when reading many controls at once. */
export const CONTROL_CHUNK = 500;

/** Many controls by ID, only within the organization (500 IDs a statement). */
export async function findControls(db: Q, organizationId: string, ids: readonly string[]): Promise<Map<string, ControlDetailRow>> {
  const out = new Map<string, ControlDetailRow>();
  for (let i = 0; i < ids.length; i += CONTROL_CHUNK) {
    const rows = await db
      .selectFrom('controls')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids.slice(i, i + CONTROL_CHUNK))
      .execute();
    for (const row of rows) out.set(row.id, toControlDetailRow(row));
  }
  return out;
}

/** ID → name of every framework of the organization. */
export async function loadFrameworkNames(db: Q, organizationId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('frameworks').select(['id', 'name']).where('organization_id', '=', organizationId).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Name and email of the given people (authorship stamps of one record). */
export async function loadPeopleByIds(db: Q, organizationId: string, personIds: string[]) {
  if (personIds.length === 0) return new Map<string, { name: string; email: string }>();
  const rows = await db
    .selectFrom('people')
    .select(['id', 'name', 'email'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', personIds)
    .execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, email: r.email }]));
}
