// SQLite's one writer connection, as the driver uses it (sqlite-connections.ts): a statement in, its
// result out, asynchronously. node:sqlite runs a statement synchronously, so on the event loop every
// statement of a write holds every other request for as long as it runs: an import's bulk inserts
// (5-8 ms each), its slices' COMMITs (100-420 ms in a 100,000-result import, writing the slice's
// pages to the WAL), a program apply's statements. A server's writer therefore runs in a thread of
// its own (writerInThread); the event loop only sends statements and receives their results, and
// reads outside transactions still run on the loop's reader connection, beside the writer.
// A short-lived process (`cds`) and an in-memory database keep the writer on the loop (writerOnLoop):
// an in-memory database is seen by its one connection only.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';
import type { QueryResult } from 'kysely';
import { DependencyUnavailableError } from '../../shared/errors.ts';
import { preparedStatements } from './sqlite-open.ts';
import { execute, type Statement } from './sqlite-execute.ts';

export interface SqliteWriter {
  run<R>(statement: Statement): Promise<QueryResult<R>>;
  /** a PRAGMA on the writer connection, run before any statement sent after it (sqlite-checkpoints.ts) */
  pragma(sql: string): void;
  close(): Promise<void>;
}

/** The writer on the event loop: each statement runs within the call. */
export function writerOnLoop(connection: DatabaseSync): SqliteWriter {
  const statements = preparedStatements(connection);
  return {
    run: async <R>(statement: Statement) => execute<R>(statements, statement),
    pragma: (sql) => {
      if (connection.isOpen) connection.exec(sql);
    },
    close: async () => statements.close(),
  };
}

// `.ts` when the source runs, `.js` in the built dist/ (as src/workers/pool.ts).
const THREAD_FILE = new URL(`./sqlite-writer-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

type Reply =
  | { id: number; result: QueryResult<unknown> }
  | { id: number; error: { message: string; code?: unknown; errcode?: unknown; errstr?: unknown } };

/** The writer in its own thread, on its own connection to `file` (opened there with openSqlite's settings). */
export function writerInThread(file: string): SqliteWriter {
  // What the thread allocates lives for one statement (its parameters, its rows on their way out): a
  // small young generation is collected often and cheaply. With V8's default, the server's resident
  // memory under the soak's bulk imports ended 18 MB higher (test/process/soak.test.ts: 420 → 402 MB).
  const thread = new Worker(THREAD_FILE, { workerData: { file }, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
  const pending = new Map<number, { resolve(result: QueryResult<unknown>): void; reject(err: Error): void }>();
  let nextId = 0;
  let ended: Error | undefined;
  // The thread keeps the process alive only while a statement is under way: a process awaiting one
  // (a migration before the server listens) must not end for want of other work.
  thread.unref();
  const settle = (id: number) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) thread.unref();
    return waiter;
  };
  thread.on('message', (reply: Reply) => {
    const waiter = settle(reply.id);
    if ('result' in reply) waiter?.resolve(reply.result);
    else waiter?.reject(Object.assign(new Error(reply.error.message), reply.error));
  });
  const end = (cause: Error) => {
    ended ??= new DependencyUnavailableError('database', 'the SQLite writer thread stopped', { cause });
    for (const id of [...pending.keys()]) settle(id)?.reject(ended);
  };
  thread.on('error', end);
  const exited = new Promise<void>((resolve) =>
    thread.once('exit', () => {
      end(new Error('the SQLite writer thread ended'));
      resolve();
    }),
  );
  return {
    run<R>({ sql, parameters }: Statement): Promise<QueryResult<R>> {
      if (ended) return Promise.reject(ended);
      const id = nextId++;
      return new Promise<QueryResult<R>>((resolve, reject) => {
        if (pending.size === 0) thread.ref();
        pending.set(id, { resolve: resolve as (result: QueryResult<unknown>) => void, reject });
        thread.postMessage({ id, sql, parameters });
      });
    },
    pragma(sql) {
      if (!ended) thread.postMessage({ pragma: sql });
    },
    async close() {
      if (!ended) {
        // waited for: the thread closes the connection (SQLite checkpoints what is left) before it ends
        thread.ref();
        thread.postMessage({ close: true });
      }
      await exited;
    },
  };
}
