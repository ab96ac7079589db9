// Opening SQLite's connections with node:sqlite, and their prepared statements, as Kysely's SQLite
// interface wants them. Apart from the dialect (sqlite-driver.ts) so that the writer's thread
// (sqlite-writer-thread.ts) loads only this, not Kysely: the thread starts with every server.
// We use the built-in module rather than better-sqlite3 because the project runs on the Node 24
// shipped by the `node` npm package, and a native addon cannot be compiled for it offline (no
// headers ship with that package); see docs/decisions/code-and-stack.md.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

// SQLite has no boolean type: Kysely passes JS booleans through, node:sqlite refuses them.
function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}

export class Statement implements SqliteStatement {
  readonly reader: boolean;
  private readonly stmt: StatementSync;
  constructor(stmt: StatementSync) {
    this.stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.stmt.all(...bind(parameters));
  }
  run(parameters: ReadonlyArray<unknown>) {
    const result = this.stmt.run(...bind(parameters));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.stmt.iterate(...bind(parameters)) as IterableIterator<unknown>;
  }
}

export function openSqlite(file: string): DatabaseSync {
  const db = new DatabaseSync(file);
  // WAL lets readers proceed while a writer commits; busy_timeout waits for another process's
  // write lock (the CLI and the server may share the file) instead of failing at once.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

/**
 * The reader connection beside the writer (sqlite-connections.ts): the same file, opened after the
 * writer has put it in WAL mode, read-only so that a statement routed to it by mistake fails
 * instead of writing outside the writer's lock and its change count.
 */
export function openSqliteReader(file: string): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: true });
  // A WAL reader waits only in rare moments (another process recovering the WAL index).
  db.exec('PRAGMA busy_timeout = 5000');
  return db;
}

/** How many prepared statements to keep: the service issues a few hundred distinct queries. */
const STATEMENT_CACHE_SIZE = 500;
/**
 * Statements longer than this are bulk writes of thousands of rows (bulk-insert.ts): SQLite's
 * compiled program for one takes megabytes outside the JavaScript heap, so only the last few are
 * kept (a bulk insert reuses its full-size statement chunk after chunk). Kept with the others, a
 * scale-20 program apply left over 100 MiB of them resident.
 */
const LARGE_STATEMENT_CHARS = 8192;
const LARGE_STATEMENT_CACHE_SIZE = 4;

/** A least-recently-used map of prepared statements by SQL text. */
function statementCache(limit: number) {
  const statements = new Map<string, Statement>();
  return {
    take(sql: string): Statement | undefined {
      const statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    keep(sql: string, statement: Statement): void {
      if (statements.size >= limit) statements.delete(statements.keys().next().value as string);
      statements.set(sql, statement);
    },
    clear: () => statements.clear(),
  };
}

/**
 * The prepared statements of one connection, reused by SQL text. Preparing a statement cost more
 * than running it on the hot paths (about a tenth of a cached GET /v1/frameworks); the least
 * recently used are dropped first. Each connection has its own: a statement belongs to the
 * connection that prepared it, and node:sqlite runs it to the end before anything else runs.
 */
export function preparedStatements(db: DatabaseSync): SqliteDatabase {
  const small = statementCache(STATEMENT_CACHE_SIZE);
  const large = statementCache(LARGE_STATEMENT_CACHE_SIZE);
  return {
    prepare: (sql: string): Statement => {
      const cache = sql.length > LARGE_STATEMENT_CHARS ? large : small;
      let statement = cache.take(sql);
      if (!statement) {
        statement = new Statement(db.prepare(sql));
        cache.keep(sql, statement);
      }
      return statement;
    },
    close: () => {
      small.clear();
      large.clear();
      db.close();
    },
  };
}
