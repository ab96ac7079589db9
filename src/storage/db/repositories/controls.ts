// Controls in storage: the rows of the list and of get-one, the IDs matching the list filters, a
// control's frameworks, requirements and mapped artifacts, and the stored data the compliance rule
// is applied to (as stored: src/domain/controls/snapshot.ts applies the rule).
//
// The list's compliance inputs are read in a fixed number of statements whatever the size of the
// organization. The big link tables (control → artifact, control → framework, artifact →
// framework) and the artifact states are read "packed": the database concatenates the values
// into one string per query (or per group) and this module splits it. At demo scale 20 (21,000
// control → artifact links) that reads them 2-3× faster than as rows on SQLite and ~1.4× on
// PostgreSQL (measured): node:sqlite and pg spend most of a large read building one object per
// row, and these reads dominate a cold GET /v1/controls (see bench/controls.ts).
import { PostgresAdapter, sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { ArtifactType, Database } from '../schema.ts';
import type { CONTROL_SCOPES, FUNCTION_GROUPINGS } from '../../../shared/vocabulary.ts';
import { group, hasEntity, hasPerson, toMappedRequirement, type Entity, type MappedFramework, type MappedRequirement } from './links.ts';
import { chunked } from '../id-chunks.ts';

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
const CONTROL_CHUNK = 500;

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

// ---- Packed reads ----

const UNIT = '\u001f';
const RECORD = '\u001e';

const isPostgres = (db: Q) => db.getExecutor().adapter instanceof PostgresAdapter;

/** One string holding every row's `columns` (text), joined by UNIT within a row and RECORD between rows. */
function packed(db: Q, columns: Array<string | RawBuilder<string>>): RawBuilder<string | null> {
  const row = sql.join(
    columns.map((c) => (typeof c === 'string' ? sql.ref(c) : c)),
    sql` || ${sql.lit(UNIT)} || `,
  );
  return isPostgres(db)
    ? sql<string | null>`string_agg(${row}, ${sql.lit(RECORD)})`
    : sql<string | null>`group_concat(${row}, ${sql.lit(RECORD)})`;
}

// Artifact keys are built by the database: the packed string then holds the keys themselves, and
// JavaScript takes them as slices instead of building and hashing a new string per link (about a
// fifth of a cold load, measured). The compliance rule reads the same spelling
// (src/domain/controls/snapshot.ts checks that they agree).
const KEY_SEPARATOR = ':';

/** The key of an artifact: `${type}:${id}`, as the packed reads spell it. */
export const artifactKeyOf = (type: ArtifactType, id: string): string => `${type}${KEY_SEPARATOR}${id}`;

/** The artifact key of a row whose type and ID are columns, as SQL. */
const keyOfColumns = (typeColumn: string, idColumn: string): RawBuilder<string> =>
  sql<string>`${sql.ref(typeColumn)} || ${sql.lit(KEY_SEPARATOR)} || ${sql.ref(idColumn)}`;

/** The artifact key of a row of one artifact table, as SQL. */
const keyOf = (type: ArtifactType, idColumn: string): RawBuilder<string> =>
  sql<string>`${sql.lit(type + KEY_SEPARATOR)} || ${sql.ref(idColumn)}`;

/**
 * Calls `row` with the fields of each packed row (the same array, refilled: copy what you keep).
 * Scans with indexOf instead of split() so that no array is allocated per row.
 */
function forEachPacked(value: string | null | undefined, width: number, row: (fields: string[]) => void): void {
  if (!value) return;
  const fields = new Array<string>(width);
  let at = 0;
  while (at <= value.length) {
    let end = value.indexOf(RECORD, at);
    if (end < 0) end = value.length;
    let from = at;
    for (let i = 0; i < width - 1; i++) {
      const cut = value.indexOf(UNIT, from);
      fields[i] = value.slice(from, cut);
      from = cut + 1;
    }
    fields[width - 1] = value.slice(from, end);
    row(fields);
    at = end + 1;
  }
}

/** The values of a packed one-column list. */
function splitPacked(value: string | null | undefined): string[] {
  return value ? value.split(RECORD) : [];
}

/** Policies or evidence records sharing the stored columns their state depends on. */
export interface StatusGroup {
  isRelevant: boolean;
  status: string;
  keys: string[];
}

/** Tests sharing the stored columns their status depends on. */
export interface ResultGroup {
  result: string;
  integrationFailing: boolean;
  keys: string[];
}

/** How the organization's controls are mapped, as stored: what the compliance rule is applied to, besides the artifacts' states. */
export interface ControlLinks {
  /** frameworks each control is mapped to through its requirements */
  controlFrameworks: Map<string, Set<string>>;
  /** artifact keys (artifactKeyOf) mapped to each control */
  controlArtifacts: Map<string, string[]>;
  /** the one stored copy of an artifact key (see below), or the key itself when no control is mapped to it */
  key(key: string): string;
  /** the one stored copy of a framework ID, or the ID itself when no control is mapped to it */
  frameworkId(id: string): string;
}

/** Hands out one shared string object per distinct value (`intern`), and finds it later (`stored`). */
function interner() {
  const pool = new Map<string, string>();
  return {
    intern(value: string): string {
      const stored = pool.get(value);
      if (stored !== undefined) return stored;
      pool.set(value, value);
      return value;
    },
    stored: (value: string): string => pool.get(value) ?? value,
  };
}

/**
 * The control → framework and control → artifact mappings of every control of the organization
 * (what `loadControlNodes` of test/harness/compliance.ts reads row by row), in two packed
 * statements. The artifacts' states are read by kind, by `loadStatusGroups` and
 * `loadTestGroups`, and the artifact → framework mappings per set of frameworks by
 * `loadFrameworksArtifacts`, all with this result's `key` and `frameworkId`.
 *
 * Every artifact key and framework ID is one shared string object wherever it appears: the
 * rule's Map and Set lookups then compare strings by identity, which makes evaluating 3,000
 * controls 2-3× faster than with equal but distinct strings (measured).
 */
export async function loadControlLinks(db: Q, organizationId: string): Promise<ControlLinks> {
  const org = organizationId;
  const [controlRequirementPairs, controlArtifactPairs] = await Promise.all([
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .select(packed(db, ['cr.control_id', 'r.framework_id']).as('packed'))
      .where('cr.organization_id', '=', org)
      .executeTakeFirst(),
    db
      .selectFrom('control_artifacts as ca')
      .select(packed(db, ['ca.control_id', keyOfColumns('ca.artifact_type', 'ca.artifact_id')]).as('packed'))
      .where('ca.organization_id', '=', org)
      .executeTakeFirst(),
  ]);
  const keys = interner();
  const frameworks = interner();
  const controlFrameworks = new Map<string, Set<string>>();
  forEachPacked(controlRequirementPairs?.packed, 2, ([controlId, framework]) => {
    let set = controlFrameworks.get(controlId);
    if (!set) controlFrameworks.set(controlId, (set = new Set()));
    set.add(frameworks.intern(framework));
  });
  const controlArtifacts = new Map<string, string[]>();
  forEachPacked(controlArtifactPairs?.packed, 2, ([controlId, k]) => {
    let list = controlArtifacts.get(controlId);
    if (!list) controlArtifacts.set(controlId, (list = []));
    list.push(keys.intern(k));
  });
  // Looking up only, from here on: the result is shared by concurrent requests and never changes.
  return { controlFrameworks, controlArtifacts, key: keys.stored, frameworkId: frameworks.stored };
}

/**
 * Every policy or evidence record of the organization, grouped by the columns its state depends
 * on (a few rows for any number of records), in one packed statement; keys are taken from
 * `links` (its shared copies).
 */
export async function loadStatusGroups(
  db: Q,
  organizationId: string,
  table: 'policies' | 'evidence',
  links: Pick<ControlLinks, 'key'>,
): Promise<StatusGroup[]> {
  const rows = await db
    .selectFrom(table)
    .select(['is_relevant', 'status', packed(db, [keyOf(table === 'policies' ? 'policy' : 'evidence', 'id')]).as('keys')])
    .where('organization_id', '=', organizationId)
    .groupBy(['is_relevant', 'status'])
    .execute();
  return rows.map((g) => ({ isRelevant: Boolean(g.is_relevant), status: g.status, keys: storedKeys(g.keys, links) }));
}

/** Every test of the organization, grouped by the columns its status depends on, as loadStatusGroups. */
export async function loadTestGroups(db: Q, organizationId: string, links: Pick<ControlLinks, 'key'>): Promise<ResultGroup[]> {
  const rows = await db
    .selectFrom('tests')
    .select(['result', 'integration_failing', packed(db, [keyOf('test', 'id')]).as('keys')])
    .where('organization_id', '=', organizationId)
    .groupBy(['result', 'integration_failing'])
    .execute();
  return rows.map((g) => ({ result: g.result, integrationFailing: Boolean(g.integration_failing), keys: storedKeys(g.keys, links) }));
}

function storedKeys(packedKeys: string | null, links: Pick<ControlLinks, 'key'>): string[] {
  const list = splitPacked(packedKeys);
  for (let i = 0; i < list.length; i++) list[i] = links.key(list[i]);
  return list;
}

/**
 * Which of `frameworkIds` each artifact is mapped to (through its requirements), in one packed
 * statement: the artifact → framework mappings the rule reads when it computes over those
 * frameworks. Keys and IDs come from `compliance`'s shared copies; artifacts mapped to the same
 * frameworks share one Set.
 */
export async function loadFrameworksArtifacts(
  db: Q,
  organizationId: string,
  frameworkIds: string[],
  compliance: Pick<ControlLinks, 'key' | 'frameworkId'>,
): Promise<Map<string, Set<string>>> {
  const mapped = new Map<string, Set<string>>();
  if (frameworkIds.length === 0) return mapped;
  const rows = await db
    .selectFrom('artifact_requirements as ar')
    .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
    .select(['r.framework_id', packed(db, [keyOfColumns('ar.artifact_type', 'ar.artifact_id')]).as('keys')])
    .where('ar.organization_id', '=', organizationId)
    .where('r.framework_id', 'in', frameworkIds)
    .groupBy('r.framework_id')
    .execute();
  // Artifacts mapped to the same frameworks share one Set (one per combination, not per artifact).
  if (rows.length === 1) {
    const only = new Set([compliance.frameworkId(rows[0].framework_id)]);
    for (const key of splitPacked(rows[0].keys)) mapped.set(compliance.key(key), only);
    return mapped;
  }
  const lists = new Map<string, string[]>();
  for (const row of rows) {
    const f = compliance.frameworkId(row.framework_id);
    for (const key of splitPacked(row.keys)) {
      const k = compliance.key(key);
      const list = lists.get(k);
      if (!list) lists.set(k, [f]);
      else if (!list.includes(f)) list.push(f);
    }
  }
  const shared = new Map<string, Set<string>>();
  for (const [k, list] of lists) {
    const signature = list.length === 1 ? list[0] : [...list].sort().join(',');
    let set = shared.get(signature);
    if (!set) shared.set(signature, (set = new Set(list)));
    mapped.set(k, set);
  }
  return mapped;
}

// ---- One control (get-one) ----

/** A requirement a control is mapped to: the read API's shape (shared-schema.ts). */
export type ControlRequirementRow = MappedRequirement;

/** The requirements a control is mapped to (unordered: the caller sorts them). */
export async function listControlRequirements(db: Q, organizationId: string, controlId: string): Promise<ControlRequirementRow[]> {
  return (await listControlsRequirements(db, organizationId, [controlId])).get(controlId) ?? [];
}

/** The requirements of many controls, by control (500 controls a statement). */
export async function listControlsRequirements(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
): Promise<Map<string, ControlRequirementRow[]>> {
  const rows = await chunked(controlIds, (chunk) =>
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
      .select(['cr.control_id', 'f.id as framework_id', 'f.name as framework_name', 'r.id as requirement_id', 'r.code', 'r.name'])
      .where('cr.organization_id', '=', organizationId)
      .where('cr.control_id', 'in', chunk)
      .execute(),
  );
  return group(rows, (r) => r.control_id, toMappedRequirement);
}

/** An artifact mapped to a control, with what its status, relevance and justification come from. */
export interface ControlArtifactRow {
  type: ArtifactType;
  id: string;
  name: string;
  /** policies and evidence: their status; tests: the stored result (the public status is computed) */
  status: string;
  /** policies and evidence */
  isRelevant: boolean;
  /** policies and evidence: notRelevantReason; tests: ignoreReason */
  reason: string | null;
  /** tests: 'automated' or 'cloud' */
  kind: string | null;
  integrationFailing: boolean;
}

/** Every policy, evidence record and test (automated and cloud) mapped to the control: three statements. */
export async function listControlArtifacts(db: Q, organizationId: string, controlId: string): Promise<ControlArtifactRow[]> {
  return (await listControlsArtifacts(db, organizationId, [controlId])).get(controlId) ?? [];
}

/**
 * The artifacts of many controls, by control: three statements per 500 controls. Each read starts
 * at the control's mapping rows (control_artifacts_cover_idx) and looks the artifact up by its key,
 * so it costs what the control has mapped, never a walk of the organization's artifacts (which
 * SQLite chose for an `id in (subquery)` form with no statistics).
 */
export async function listControlsArtifacts(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
): Promise<Map<string, ControlArtifactRow[]>> {
  const org = organizationId;
  const rows: Array<{ controlId: string; artifact: ControlArtifactRow }> = [];
  /** a policy or evidence record: status and relevance are its own */
  const reviewed =
    (type: 'policy' | 'evidence') =>
    (a: { control_id: string; id: string; name: string; status: string; is_relevant: unknown; not_relevant_reason: string | null }) => ({
      controlId: a.control_id,
      artifact: {
        type,
        id: a.id,
        name: a.name,
        status: a.status,
        isRelevant: Boolean(a.is_relevant),
        reason: a.not_relevant_reason,
        kind: null,
        integrationFailing: false,
      },
    });
  for (let i = 0; i < controlIds.length; i += CONTROL_CHUNK) {
    const ids = controlIds.slice(i, i + CONTROL_CHUNK);
    const mappings = (type: ArtifactType) =>
      db
        .selectFrom('control_artifacts as ca')
        .where('ca.organization_id', '=', org)
        .where('ca.control_id', 'in', ids)
        .where('ca.artifact_type', '=', type);
    const [policies, evidence, tests] = await Promise.all([
      mappings('policy')
        .innerJoin('policies as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.status', 'a.is_relevant', 'a.not_relevant_reason'])
        .execute(),
      mappings('evidence')
        .innerJoin('evidence as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.status', 'a.is_relevant', 'a.not_relevant_reason'])
        .execute(),
      mappings('test')
        .innerJoin('tests as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.kind', 'a.result', 'a.integration_failing', 'a.ignore_reason'])
        .execute(),
    ]);
    rows.push(...policies.map(reviewed('policy')), ...evidence.map(reviewed('evidence')));
    for (const t of tests)
      rows.push({
        controlId: t.control_id,
        artifact: {
          type: 'test',
          id: t.id,
          name: t.name,
          status: t.result,
          isRelevant: true,
          reason: t.ignore_reason,
          kind: t.kind,
          integrationFailing: Boolean(t.integration_failing),
        },
      });
  }
  return group(
    rows,
    (r) => r.controlId,
    (r) => r.artifact,
  );
}

/** The frameworks each artifact mapped to the control is mapped to, ordered by framework name then ID. */
export async function loadControlArtifactFrameworks(
  db: Q,
  organizationId: string,
  controlId: string,
): Promise<Map<string, MappedFramework[]>> {
  const rows = await db
    .selectFrom('control_artifacts as ca')
    .innerJoin('artifact_requirements as ar', (join) =>
      join
        .onRef('ar.artifact_type', '=', 'ca.artifact_type')
        .onRef('ar.artifact_id', '=', 'ca.artifact_id')
        .onRef('ar.organization_id', '=', 'ca.organization_id'),
    )
    .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
    .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
    .select(['ca.artifact_type', 'ca.artifact_id', 'f.id', 'f.name'])
    .distinct()
    .where('ca.organization_id', '=', organizationId)
    .where('ca.control_id', '=', controlId)
    .orderBy('f.name')
    .orderBy('f.id')
    .execute();
  const map = new Map<string, MappedFramework[]>();
  for (const r of rows) {
    const key = artifactKeyOf(r.artifact_type, r.artifact_id);
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    list.push({ frameworkId: r.id, frameworkName: r.name });
  }
  return map;
}

/** The entities of each artifact mapped to the control, ordered by entity name then ID. */
export async function loadControlArtifactEntities(db: Q, organizationId: string, controlId: string): Promise<Map<string, Entity[]>> {
  const rows = await db
    .selectFrom('control_artifacts as ca')
    .innerJoin('subject_entities as se', (join) =>
      join
        .onRef('se.subject_type', '=', 'ca.artifact_type')
        .onRef('se.subject_id', '=', 'ca.artifact_id')
        .onRef('se.organization_id', '=', 'ca.organization_id'),
    )
    .innerJoin('entities as e', 'e.id', 'se.entity_id')
    .select(['ca.artifact_type', 'ca.artifact_id', 'e.id', 'e.name'])
    .where('ca.organization_id', '=', organizationId)
    .where('ca.control_id', '=', controlId)
    .orderBy('e.name')
    .orderBy('e.id')
    .execute();
  const map = new Map<string, Entity[]>();
  for (const r of rows) {
    const key = artifactKeyOf(r.artifact_type, r.artifact_id);
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    list.push({ entityId: r.id, entityName: r.name });
  }
  return map;
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
