// Inserting many rows fast on both engines, inside transactions. Used by the demo generator and
// by anything that loads data in bulk. Two statement forms:
//   values — `insert … values (?,?),(?,?)…`: one bind parameter per value, so a statement holds
//            at most ⌊limit / columns⌋ rows (SQLite: 32,766 parameters; PostgreSQL: 65,535).
//   arrays — PostgreSQL only: `insert … select * from unnest($1::text[], $2::bigint[], …)`: one
//            parameter per column whatever the row count. About 1.6× faster than `values` there,
//            because the server parses a few array literals instead of a huge VALUES list.
// The SQL is built here rather than through Kysely's builder because at a million rows the
// builder's per-value nodes cost more than the database does.
import { CompiledQuery, PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely';
import type { Db, DialectName } from './connect.ts';
import type { Database } from './schema.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';

export type TableName = keyof Database & string;
export type Row<T extends TableName> = Insertable<Database[T]>;
export type StatementForm = 'values' | 'arrays';

/** The most bind parameters one statement may carry (SQLite's default max, PostgreSQL's protocol max). */
export const BIND_PARAMETER_LIMITS: Readonly<Record<DialectName, number>> = { sqlite: 32_766, postgres: 65_535 };

export interface BulkInsertOptions {
  /** run inside this transaction (or connection) instead of opening one */
  executor?: Kysely<Database>;
  /** statement form; default `arrays` on PostgreSQL, `values` on SQLite (the only one it has) */
  form?: StatementForm;
  /** the per-statement budget of values (default STATEMENT_VALUES, within the engine's bind-parameter limit) */
  maxParameters?: number;
  /** cap rows per statement (default 5,000) */
  maxRows?: number;
}

const DEFAULT_MAX_ROWS = 5_000;
/**
 * SQLite's statements run synchronously on the event loop (node:sqlite), so one statement holds
 * every other request for as long as it runs: 500 findings, with their six indexes and two
 * triggers a row, took 20-33 ms (issue 36's noisy-neighbour profile), longer than a turn
 * (src/shared/event-loop-turns.ts). A statement on SQLite therefore carries at most this many
 * values: about 68 findings, a few milliseconds, with a turn of the loop between statements.
 * Narrow rows (links, events) go more to a statement, which is what kept the demo loader as fast
 * as before: a cap of 32 rows whatever the width made it 26% slower, this budget as fast (scale
 * 10: 1.21-1.22 s against 1.20-1.21 s).
 * PostgreSQL runs its statements in its own process, but building one runs on the event loop (the
 * driver turns every value into text): 500 findings with their resources in one statement held
 * the loop 8-17 ms, and 1,000 events 7-9 ms (issue 36, another organization's writes waiting
 * behind an import). Its budget keeps each under a few milliseconds, a turn of the loop between.
 */
const STATEMENT_VALUES: Readonly<Record<DialectName, number>> = { sqlite: 2048, postgres: 4096 };

function formFor(dialect: DialectName, options: BulkInsertOptions): StatementForm {
  const form = options.form ?? (dialect === 'postgres' ? 'arrays' : 'values');
  if (form === 'arrays' && dialect !== 'postgres') throw new Error('the arrays form needs PostgreSQL');
  return form;
}

/** How many rows of `columnCount` columns one statement carries, within the statement's budget of values. */
export function rowsPerStatement(dialect: DialectName, columnCount: number, options: BulkInsertOptions = {}): number {
  const limit = BIND_PARAMETER_LIMITS[dialect];
  const budget = Math.min(options.maxParameters ?? STATEMENT_VALUES[dialect], limit);
  const arrays = formFor(dialect, options) === 'arrays';
  // the arrays form binds one parameter a column whatever the rows: its budget counts values, not parameters
  if (columnCount > (arrays ? limit : budget)) throw new RangeError(`a row of ${columnCount} columns exceeds ${budget} bind parameters`);
  return Math.max(1, Math.min(Math.floor(budget / Math.max(1, columnCount)), options.maxRows ?? DEFAULT_MAX_ROWS));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const sqlCache = new Map<string, string>();

/** the VALUES-form INSERT for `rowCount` rows; full-size statements are cached (remainders vary too much) */
function valuesSql(dialect: DialectName, table: string, columns: readonly string[], rowCount: number, cache: boolean): string {
  const key = `${dialect}|${table}|${columns.join(',')}|${rowCount}`;
  let text = cache ? sqlCache.get(key) : undefined;
  if (text) return text;
  const tuples: string[] = new Array(rowCount);
  let n = 0;
  for (let r = 0; r < rowCount; r++) {
    const marks: string[] = new Array(columns.length);
    for (let c = 0; c < columns.length; c++) marks[c] = dialect === 'postgres' ? `$${++n}` : '?';
    tuples[r] = `(${marks.join(',')})`;
  }
  text = `insert into ${quote(table)} (${columns.map(quote).join(',')}) values ${tuples.join(',')}`;
  if (cache) {
    if (sqlCache.size >= 100) sqlCache.clear();
    sqlCache.set(key, text);
  }
  return text;
}

/** PostgreSQL column types per table, looked up once per database handle (arrays need a cast each) */
const columnTypes = new WeakMap<Db, Map<string, Map<string, string>>>();

async function typesOf(db: Db, executor: Kysely<Database>, table: string): Promise<Map<string, string>> {
  let tables = columnTypes.get(db);
  if (!tables) columnTypes.set(db, (tables = new Map()));
  let types = tables.get(table);
  if (!types) {
    const result = await sql<{ name: string; type: string }>`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type
      from pg_attribute a
      where a.attrelid = to_regclass(${quote(table)}) and a.attnum > 0 and not a.attisdropped`.execute(executor);
    types = new Map(result.rows.map((r) => [r.name, r.type]));
    if (types.size === 0) throw new Error(`bulk insert: table ${table} not found`);
    tables.set(table, types);
  }
  return types;
}

/** The arrays-form INSERT of `columns` into `table`, its arrays bound from parameter `offset + 1` on. */
async function arraysInsert(
  db: Db,
  executor: Kysely<Database>,
  table: string,
  columns: readonly string[],
  offset: number,
): Promise<string> {
  const types = await typesOf(db, executor, table);
  return arraysSql(
    table,
    columns,
    columns.map((c) => {
      const type = types.get(c);
      if (!type) throw new Error(`bulk insert: ${table} has no column ${c}`);
      return type;
    }),
    offset,
  );
}

function arraysSql(table: string, columns: readonly string[], types: readonly string[], offset: number): string {
  const casts = columns.map((_, i) => `$${offset + i + 1}::${types[i]}[]`);
  return `insert into ${quote(table)} (${columns.map(quote).join(',')}) select * from unnest(${casts.join(',')})`;
}

/** The engine of a connection or transaction (for a repository handed one, not the Db). */
export const dialectOf = (executor: Kysely<Database>): DialectName =>
  executor.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

/**
 * One INSERT of `rows` into `table`, in the engine's default form, for a repository that is handed
 * a transaction rather than the Db and so names its columns' PostgreSQL types itself (events.ts).
 * At most rowsPerStatement(dialect, columns.length) rows.
 */
export function insertStatement(
  dialect: DialectName,
  table: TableName,
  columns: readonly { name: string; postgresType: string }[],
  rows: readonly object[],
): CompiledQuery {
  const names = columns.map((c) => c.name);
  if (dialect === 'postgres')
    return CompiledQuery.raw(
      arraysSql(
        table,
        names,
        columns.map((c) => c.postgresType),
        0,
      ),
      arrayParameters(rows, names),
    );
  return CompiledQuery.raw(
    valuesSql(dialect, table, names, rows.length, rows.length === rowsPerStatement(dialect, names.length)),
    valueParameters(rows, names),
  );
}

/** The values of rows[start, end), a row after another, NULL for a missing value. */
function valueParameters(rows: readonly object[], columns: readonly string[], start = 0, end = rows.length): unknown[] {
  const params: unknown[] = new Array((end - start) * columns.length);
  let p = 0;
  for (let r = start; r < end; r++) {
    const row = rows[r] as Record<string, unknown>;
    for (let c = 0; c < columns.length; c++) {
      const value = row[columns[c]];
      params[p++] = value === undefined ? null : value;
    }
  }
  return params;
}

/** One array per column of rows[start, end), NULL for a missing value. */
function arrayParameters(rows: readonly object[], columns: readonly string[], start = 0, end = rows.length): unknown[][] {
  return columns.map((column) => {
    const values: unknown[] = new Array(end - start);
    for (let r = start; r < end; r++) {
      const value = (rows[r] as Record<string, unknown>)[column];
      values[r - start] = value === undefined ? null : value;
    }
    return values;
  });
}

/**
 * PostgreSQL only: inserts `parents` and their `children` in one statement (the parents' insert as
 * a WITH clause), so statement-level triggers see both tables complete: a parent that carries
 * what its children make of it (migration 0020's resources_count) is not rewritten after them.
 * The children's foreign keys are checked at the end of the statement, when the parents exist.
 * Many parents go in several such statements, each within the budget of values (STATEMENT_VALUES),
 * a parent always with all its children (`child.parentColumn` names the parent's `id`).
 */
export async function bulkInsertWithChildren<P extends TableName, C extends TableName>(
  db: Db,
  executor: Kysely<Database>,
  parent: { table: P; rows: readonly Row<P>[] },
  child: { table: C; rows: readonly Row<C>[]; parentColumn: keyof Row<C> & string },
): Promise<void> {
  if (db.dialect !== 'postgres') throw new Error('one statement for parents and children needs PostgreSQL');
  if (parent.rows.length === 0) return;
  if (child.rows.length === 0) {
    await insertChunks(db, executor, parent.table, parent.rows, {});
    return;
  }
  const parentColumns = Object.keys(parent.rows[0] as object);
  const childColumns = Object.keys(child.rows[0] as object);
  const parents = await arraysInsert(db, executor, parent.table, parentColumns, 0);
  const children = await arraysInsert(db, executor, child.table, childColumns, parentColumns.length);
  const text = `with parents as (${parents}) ${children}`;
  const childrenOf = new Map<unknown, Row<C>[]>();
  for (const row of child.rows) {
    const id = row[child.parentColumn];
    const list = childrenOf.get(id);
    if (list) list.push(row);
    else childrenOf.set(id, [row]);
  }
  const budget = STATEMENT_VALUES.postgres;
  for (let start = 0; start < parent.rows.length; ) {
    const kin: Row<C>[] = [];
    let end = start;
    let values = 0;
    do {
      const mine = childrenOf.get((parent.rows[end] as { id?: unknown }).id) ?? [];
      values += parentColumns.length + mine.length * childColumns.length;
      kin.push(...mine);
      end++;
    } while (end < parent.rows.length && values < budget);
    await executor.executeQuery(
      CompiledQuery.raw(text, [...arrayParameters(parent.rows, parentColumns, start, end), ...arrayParameters(kin, childColumns)]),
    );
    start = end;
    await shareTheLoop();
  }
}

async function insertChunks(
  db: Db,
  executor: Kysely<Database>,
  table: string,
  rows: readonly object[],
  options: BulkInsertOptions,
): Promise<void> {
  const dialect = db.dialect;
  const columns = Object.keys(rows[0]);
  const perStatement = rowsPerStatement(dialect, columns.length, options);
  const arrays = formFor(dialect, options) === 'arrays';
  const arraysSql = arrays ? await arraysInsert(db, executor, table, columns, 0) : '';
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    let compiled: CompiledQuery;
    if (arrays) {
      compiled = CompiledQuery.raw(arraysSql, arrayParameters(rows, columns, start, end));
    } else {
      compiled = CompiledQuery.raw(
        valuesSql(dialect, table, columns, end - start, end - start === perStatement),
        valueParameters(rows, columns, start, end),
      );
    }
    await executor.executeQuery(compiled);
    await shareTheLoop();
  }
}

/**
 * Inserts `rows` into `table` in as few statements as the engine allows. Every row must carry
 * the same columns as the first (missing values are written as NULL, not as column defaults).
 * Without `options.executor` the whole batch runs in one transaction. Returns the row count.
 */
export async function bulkInsert<T extends TableName>(
  db: Db,
  table: T,
  rows: readonly Row<T>[],
  options: BulkInsertOptions = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  if (options.executor) {
    await insertChunks(db, options.executor, table, rows, options);
  } else {
    await db.kysely.transaction().execute((trx) => insertChunks(db, trx, table, rows, options));
  }
  return rows.length;
}

export interface BulkWriterOptions extends Omit<BulkInsertOptions, 'executor'> {
  /**
   * Tables in insertion order: parents before children, so foreign keys hold in each flush.
   * Rows for a table not listed are refused.
   */
  order: readonly TableName[];
  /** flush once this many rows are buffered (default 20,000) */
  flushAt?: number;
}

/**
 * Buffers rows of many tables and writes them in transactions of about `flushAt` rows, so a
 * generator can stream millions of rows in bounded memory. Call `add` for each row, `maybeFlush`
 * at record boundaries, and `flush` at the end.
 *
 * `maybeFlush` starts writing a full buffer and returns while the database works, so producing
 * the next batch overlaps with inserting this one (PostgreSQL runs in another process; SQLite's
 * driver is synchronous, so there it simply writes). At most one batch is in flight, and a batch
 * starts only after the previous one committed, so foreign keys still hold.
 */
export class BulkWriter {
  private readonly db: Db;
  private readonly options: BulkWriterOptions;
  private readonly buffers = new Map<TableName, object[]>();
  private readonly written = new Map<TableName, number>();
  private buffered = 0;
  private readonly flushAt: number;
  private inflight: Promise<void> | null = null;

  constructor(db: Db, options: BulkWriterOptions) {
    this.db = db;
    this.options = options;
    this.flushAt = options.flushAt ?? 20_000;
    for (const table of options.order) {
      this.buffers.set(table, []);
      this.written.set(table, 0);
    }
  }

  add<T extends TableName>(table: T, row: Row<T>): void {
    const buffer = this.buffers.get(table);
    if (!buffer) throw new Error(`BulkWriter: table ${table} is not in the insertion order`);
    buffer.push(row);
    this.buffered++;
  }

  /** rows buffered and not yet handed to the database */
  get pending(): number {
    return this.buffered;
  }

  /**
   * When the buffer is full: waits for the batch in flight, then starts writing this one and
   * returns true without waiting for it. Cheap otherwise. A failed batch rejects here or in `flush`.
   */
  async maybeFlush(): Promise<boolean> {
    if (this.buffered < this.flushAt) return false;
    await this.settle();
    const write = this.write(this.take());
    write.catch(() => {}); // observed by settle(); avoids an unhandled rejection meanwhile
    this.inflight = write;
    return true;
  }

  /** Writes everything buffered and waits until it is committed. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.buffered > 0) await this.write(this.take());
  }

  /** Waits for the batch in flight, ignoring its outcome (for error paths: nothing left running). */
  async drain(): Promise<void> {
    try {
      await this.settle();
    } catch {
      // the caller is already failing with its own error
    }
  }

  /** Rows committed so far, per table. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.written);
  }

  private async settle(): Promise<void> {
    const inflight = this.inflight;
    this.inflight = null;
    if (inflight) await inflight;
  }

  private take(): [TableName, object[]][] {
    const batches: [TableName, object[]][] = [];
    for (const table of this.options.order) {
      const rows = this.buffers.get(table)!;
      if (rows.length > 0) {
        batches.push([table, rows]);
        this.buffers.set(table, []);
      }
    }
    this.buffered = 0;
    return batches;
  }

  /** one transaction, tables in the configured order */
  private async write(batches: [TableName, object[]][]): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      for (const [table, rows] of batches) {
        await insertChunks(this.db, trx, table, rows, this.options);
      }
    });
    for (const [table, rows] of batches) this.written.set(table, this.written.get(table)! + rows.length);
  }
}
