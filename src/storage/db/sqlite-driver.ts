// Adapts Node's built-in `node:sqlite` to the statement interface Kysely's SqliteDialect expects.
// We use the built-in module rather than better-sqlite3 because the project runs on the Node 24
// shipped by the `node` npm package, and a native addon cannot be compiled for it offline (no
// headers ship with that package); see docs/decisions/code-and-stack.md.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

// SQLite has no boolean type: Kysely passes JS booleans through, node:sqlite refuses them.
function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}

/**
 * Counts the statements run on one connection that can change the database, so that a cache can
 * tell "nothing written here since" by comparing one number (connect.ts, Db.changeStamp): asking
 * SQLite (total_changes()) on every request cost more than the rest of a warm read's bookkeeping.
 * Every statement that is not a plain SELECT counts (INSERT, UPDATE, DELETE with or without
 * RETURNING, WITH, BEGIN, COMMIT…): counting too many only costs a cache an extra read.
 */
export class WriteCounter {
  count = 0;
}

const PLAIN_READ = /^\s*select\b/i;

class Statement implements SqliteStatement {
  readonly reader: boolean;
  private readonly stmt: StatementSync;
  private readonly writes: WriteCounter | undefined;
  constructor(stmt: StatementSync, sql: string, writes: WriteCounter) {
    this.stmt = stmt;
    this.reader = stmt.columns().length > 0;
    this.writes = PLAIN_READ.test(sql) ? undefined : writes;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    if (this.writes) this.writes.count++;
    return this.stmt.all(...bind(parameters));
  }
  run(parameters: ReadonlyArray<unknown>) {
    if (this.writes) this.writes.count++;
    const result = this.stmt.run(...bind(parameters));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    if (this.writes) this.writes.count++;
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

export function nodeSqliteDialect(db: DatabaseSync, writes: WriteCounter = new WriteCounter()): SqliteDialect {
  // Preparing a statement cost more than running it on the hot paths (about a tenth of a cached
  // GET /v1/frameworks), so prepared statements are reused by SQL text, least recently used
  // dropped first. Kysely runs statements one at a time on this single connection, so reuse is safe.
  const small = statementCache(STATEMENT_CACHE_SIZE);
  const large = statementCache(LARGE_STATEMENT_CACHE_SIZE);
  const prepare = (sql: string): Statement => {
    const cache = sql.length > LARGE_STATEMENT_CHARS ? large : small;
    let statement = cache.take(sql);
    if (!statement) {
      statement = new Statement(db.prepare(sql), sql, writes);
      cache.keep(sql, statement);
    }
    return statement;
  };
  const database: SqliteDatabase = {
    close: () => {
      small.clear();
      large.clear();
      db.close();
    },
    prepare,
  };
  return new ImmediateSqliteDialect({ database });
}

/**
 * Transactions start with BEGIN IMMEDIATE, taking the write lock up front. A plain (deferred)
 * BEGIN that reads first and writes later cannot wait for a lock another process holds: SQLite
 * fails it with SQLITE_BUSY at once, whatever busy_timeout says. Taking the lock first makes a
 * second server process on the same file wait its turn instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}
