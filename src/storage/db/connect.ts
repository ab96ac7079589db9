// Opens the configured database engine. This is the one place where SQLite and PostgreSQL are
// told apart at start-up; repositories receive the resulting `Db` and stay engine-neutral.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { changeStamp } from './sqlite-change-stamp.ts';
import { checkpointInThread } from './sqlite-checkpoints.ts';
import { nodeSqliteDialect } from './sqlite-driver.ts';
import { openSqlite, openSqliteReader } from './sqlite-open.ts';
import { WriterLock } from './sqlite-connections.ts';
import { writerInThread, writerOnLoop } from './sqlite-writer.ts';
import { WriteCounter } from './sqlite-write-counter.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /** a cheap round trip, used by /readyz */
  ping(): Promise<void>;
  /**
   * SQLite only: a value that changes whenever anything was committed to the database since it was
   * last read, by this process (at once) or another (`cds` on the same file; seen from the next
   * turn of the event loop, see sqlite-change-stamp.ts); not by statements of a transaction still open. Reading it costs no I/O, so a node can trust state it
   * read earlier for as long as it is unchanged (src/domain/auth/grant-cache.ts).
   */
  changeStamp?: () => string;
  /**
   * SQLite only: how many writes and transactions of this process wait for the one writer now. A
   * write in slices (a scanner import) commits at once for them, and holds on while none waits
   * (domain/vulnerabilities/import-slices.ts). PostgreSQL has no such queue: each organization's
   * writes lock its own row, so another organization never waits for an import there.
   */
  writersWaiting?: () => number;
  /**
   * SQLite file with its checkpoint thread only: resolves once a checkpoint asked for now has run
   * (sqlite-checkpoints.ts, caughtUp), so that a write in slices lets the WAL start again from its
   * beginning between two slices instead of growing for the whole write.
   */
  walCaughtUp?: () => Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  sqlitePath?: string;
  poolSize?: number;
  onPoolError?: (err: Error) => void;
  /**
   * SQLite file only: checkpoints taken by a thread of their own instead of inside the writer's
   * commits (sqlite-checkpoints.ts). For a server: a short-lived process (`cds`, a backup) keeps
   * SQLite's default.
   */
  checkpointInThread?: { onError(err: Error): void };
  /**
   * SQLite file only: the writer connection in a thread of its own, its statements off the event
   * loop (sqlite-writer.ts). For a server, with checkpointInThread; `cds` keeps it on the loop.
   */
  writerInThread?: boolean;
}

// PostgreSQL returns bigint (int8) columns and count(*) as strings; every bigint here is an
// epoch-ms time or a count, both well inside Number's exact range.
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function openDb(options: DbOptions): Db {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // Fail fast while the server is unreachable, so requests answer 503 instead of hanging.
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      statement_timeout: 30_000,
      types: pgTypes,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', (err) => options.onPoolError?.(err));
    // A client checked out of the pool has no 'error' listener (pg-pool removes its own), so a
    // connection lost mid-query would emit an unhandled 'error' and crash the process. The query
    // itself already fails with the same error (→ 503); this listener only keeps the process up.
    pool.on('connect', (client) => client.on('error', () => {}));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      close: () => kysely.destroy(),
    };
  }
  const file = options.sqlitePath ?? ':memory:';
  if (file !== ':memory:') {
    // Private from the start (docs/operations.md, "File permissions"): SQLite gives its -wal and
    // -shm files the database file's mode, so creating the file 0600 covers all three.
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  // Opened first, it puts the file in WAL mode (the reader and the writer's thread need it). With the
  // writer in its thread, it writes nothing: its `PRAGMA data_version` tells the change stamp of
  // every commit (sqlite-change-stamp.ts), the thread's being another connection's.
  const sqlite = openSqlite(file);
  const threaded = options.writerInThread === true && file !== ':memory:';
  const writer = threaded ? writerInThread(file) : writerOnLoop(sqlite);
  const writes = new WriteCounter();
  // Reads beside the writer (sqlite-connections.ts); an in-memory database is seen by its one connection only.
  const reader = file === ':memory:' ? undefined : openSqliteReader(file);
  const writerLock = new WriterLock();
  const kysely = new Kysely<Database>({ dialect: nodeSqliteDialect(writer, { writes, reader, writerLock }) });
  const checkpointer =
    options.checkpointInThread && file !== ':memory:' ? checkpointInThread(file, writer, options.checkpointInThread.onError) : undefined;
  return {
    kysely,
    dialect: 'sqlite',
    changeStamp: changeStamp(sqlite, writes),
    writersWaiting: () => writerLock.waiting,
    ...(checkpointer ? { walCaughtUp: () => checkpointer.caughtUp() } : {}),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      await checkpointer?.stop();
      await kysely.destroy();
      if (threaded) sqlite.close();
    },
  };
}
