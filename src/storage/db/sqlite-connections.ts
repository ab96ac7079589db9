// Reads beside the writer on SQLite (docs/decisions/storage.md, "Reads beside the writer on SQLite").
//
// Kysely's own SQLite driver has one connection and holds a mutex on it from BEGIN to COMMIT. A
// transaction here awaits between its statements (an import reads its body as it streams, a
// program apply hands work to worker threads), so every other organization's reads queued behind
// it for as long as it took (issue 36). This driver keeps the one writer connection and its mutex
// for transactions and writes, and runs a plain SELECT outside a transaction on a second, read-only
// connection to the same WAL file, at once: node:sqlite is synchronous, so the SELECT runs to its
// end within the call and reads the last committed snapshot, never the open transaction's rows.
//
// Read your writes: a statement started on the reader after a commit has finished sees it (WAL
// gives each new read the newest commit), and every SELECT on the reader runs to its end before the
// call returns, so no read transaction is left open there to pin an older snapshot.
//
// The writer itself runs a server's statements in a thread of its own (sqlite-writer.ts): the
// driver awaits each, and holds the writer's mutex across those awaits as before.
import { CompiledQuery, SelectQueryNode, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase } from 'kysely';
import { execute } from './sqlite-execute.ts';
import type { SqliteWriter } from './sqlite-writer.ts';
import type { WriteCounter } from './sqlite-write-counter.ts';

/** A SELECT built by Kysely (with or without WITH: SQLite's CTEs cannot write), or raw SQL that starts with SELECT. */
const PLAIN_READ = /^\s*select\b/i;
const isPlainRead = (query: CompiledQuery) => SelectQueryNode.is(query.query) || PLAIN_READ.test(query.sql);

/**
 * One holder at a time of the writer connection; the others wait in order. It counts those waiting:
 * a long write in slices (a scanner import, domain/vulnerabilities/import-slices.ts) ends its slice
 * early for them and runs longer ones while no one waits (Db.writersWaiting, connect.ts).
 */
export class WriterLock {
  private tail: Promise<void> = Promise.resolve();
  /** callers of lock() not yet let in */
  waiting = 0;
  /** resolves with the function that lets the next holder in */
  lock(): Promise<() => void> {
    let unlock!: () => void;
    const released = new Promise<void>((resolve) => (unlock = resolve));
    this.waiting++;
    const turn = this.tail.then(() => {
      this.waiting--;
      return unlock;
    });
    this.tail = this.tail.then(() => released);
    return turn;
  }
}

interface Connections {
  writer: SqliteWriter;
  /** undefined for an in-memory database, which only its one connection can see */
  reader: SqliteDatabase | undefined;
  writerLock: WriterLock;
  writes: WriteCounter;
}

/**
 * What Kysely holds between acquireConnection and releaseConnection: it knows whether it is inside
 * a transaction (then everything runs on the writer, whose mutex it holds from BEGIN to the end)
 * and otherwise picks the connection per statement.
 */
class Lease implements DatabaseConnection {
  private readonly connections: Connections;
  /** set while this lease holds the writer (from BEGIN until COMMIT or ROLLBACK, or release) */
  private unlock: (() => void) | undefined;
  constructor(connections: Connections) {
    this.connections = connections;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { writer, reader, writerLock, writes } = this.connections;
    if (this.unlock) return writer.run<R>(query);
    const read = isPlainRead(query);
    if (read && reader) return execute<R>(reader, query);
    const unlock = await writerLock.lock();
    try {
      return await writer.run<R>(query);
    } finally {
      // An autocommit write is committed when it returns (or undone when it throws: counted anyway).
      if (!read) writes.count++;
      unlock();
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Nothing here streams; a stream would hold a read transaction open across awaits.
    yield await this.executeQuery<R>(query);
  }

  async begin(): Promise<void> {
    const unlock = await this.connections.writerLock.lock();
    try {
      // BEGIN IMMEDIATE takes the write lock up front: a deferred BEGIN that reads first and writes
      // later cannot wait for a lock another process holds (SQLite fails it with SQLITE_BUSY at
      // once, whatever busy_timeout says); this way a second process on the file waits its turn.
      await this.connections.writer.run(CompiledQuery.raw('begin immediate'));
    } catch (err) {
      unlock();
      throw err;
    }
    this.unlock = unlock;
  }

  async commit(): Promise<void> {
    try {
      await this.connections.writer.run(CompiledQuery.raw('commit'));
    } finally {
      // After the COMMIT ran, never before: a stamp read in between must not vouch for data read
      // before the commit was visible.
      this.connections.writes.count++;
    }
    this.release();
  }

  async rollback(): Promise<void> {
    try {
      await this.connections.writer.run(CompiledQuery.raw('rollback'));
    } finally {
      this.release();
    }
  }

  /** Lets the next holder of the writer in, when this lease holds it (a commit or rollback that failed). */
  release(): void {
    const unlock = this.unlock;
    this.unlock = undefined;
    unlock?.();
  }
}

/** Kysely's Driver over a writer connection and, for a file database, a reader connection beside it. */
export class ReadBesideWriteDriver implements Driver {
  private readonly connections: Connections;
  constructor(writer: SqliteWriter, reader: SqliteDatabase | undefined, writes: WriteCounter, writerLock = new WriterLock()) {
    this.connections = { writer, reader, writerLock, writes };
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.connections);
  }
  async beginTransaction(lease: DatabaseConnection): Promise<void> {
    await (lease as Lease).begin();
  }
  async commitTransaction(lease: DatabaseConnection): Promise<void> {
    await (lease as Lease).commit();
  }
  async rollbackTransaction(lease: DatabaseConnection): Promise<void> {
    await (lease as Lease).rollback();
  }
  async releaseConnection(lease: DatabaseConnection): Promise<void> {
    (lease as Lease).release();
  }
  async destroy(): Promise<void> {
    this.connections.reader?.close();
    await this.connections.writer.close();
  }
}
