// The stored data the compliance rule is applied to (as stored: src/domain/controls/snapshot.ts
// applies the rule): every control's mappings and every artifact's state.
//
// The list's compliance inputs are read in a fixed number of statements whatever the size of the
// organization. The big link tables (control → artifact, control → framework, artifact →
// framework) and the artifact states are read "packed": the database concatenates the values
// into one string per query (or per group) and this module splits it. At demo scale 20 (21,000
// control → artifact links) that reads them 2-3× faster than as rows on SQLite and ~1.4× on
// PostgreSQL (measured): node:sqlite and pg spend most of a large read building one object per
// row, and these reads dominate a cold GET /v1/controls (see bench/controls.ts).
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { ArtifactType, Database } from '../../schema.ts';

type Q = Kysely<Database>;

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
