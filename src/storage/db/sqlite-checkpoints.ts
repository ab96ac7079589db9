// Checkpoints off the event loop (issue 36; docs/decisions/storage.md, "Checkpoints in a thread").
//
// SQLite in WAL mode copies the WAL back into the database file at a checkpoint, which by default
// the connection that commits runs itself, inside its COMMIT, once the WAL passes 1,000 pages.
// node:sqlite is synchronous, so that checkpoint held the server's event loop: commits of an
// import's slices took 23-47 ms instead of about 1, and every other organization's requests waited
// (the noisy-neighbour profile, docs/benchmarks.md). A server's writer therefore leaves them to a
// thread of its own, with its own connection to the file, which takes a PASSIVE checkpoint every
// CHECKPOINT_EVERY_MS. The writer still checkpoints itself past FALLBACK_PAGES (a thread fallen
// behind, or stopped), so the WAL stays bounded whatever happens; if the thread fails, the writer
// takes the checkpoints back at SQLite's default.
//
// Durability is unchanged: a checkpoint is the same operation whoever runs it (synchronous=NORMAL
// syncs the WAL before it copies); a commit is durable in the WAL as before. A checkpoint is not a
// commit, so `PRAGMA data_version` (sqlite-change-stamp.ts) does not move with it.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SqliteWriter } from './sqlite-writer.ts';

/** How often the thread checkpoints: at an import's pace, a few MiB of WAL between two. */
const CHECKPOINT_EVERY_MS = 100;
/** SQLite's own default threshold, which the writer goes back to if the thread fails. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** The writer checkpoints itself past this many WAL pages (64 MiB at 4 KiB pages): the thread has fallen behind. */
const FALLBACK_PAGES = 16_384;

// `.ts` when the source runs, `.js` in the built dist/ (as src/workers/pool.ts).
const THREAD_FILE = new URL(`./sqlite-checkpoint-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface Checkpointer {
  /**
   * A checkpoint taken now, waited for (at most CATCH_UP_MS): when it copies every committed page,
   * the next write transaction starts the WAL again from its beginning. A bulk write that commits
   * slice after slice (an import) calls it between two: otherwise the thread's checkpoints, every
   * CHECKPOINT_EVERY_MS, never find the WAL wholly copied at the moment a slice begins, the WAL
   * never restarts, and once it passes FALLBACK_PAGES every commit checkpoints it again on the event
   * loop (a 100,000-result import: the WAL at 57,937 pages, commits of 100-445 ms; docs/benchmarks.md).
   */
  caughtUp(): Promise<void>;
  /** Ends the thread (the writer's close then checkpoints what is left, as SQLite does). */
  stop(): Promise<void>;
}

/** The longest a writer waits for a checkpoint it asked for: the thread may be stopped or slow. */
const CATCH_UP_MS = 1000;

/** Starts the checkpoint thread of the SQLite file `file`, whose server-side writer is `writer`. */
export function checkpointInThread(
  file: string,
  writer: Pick<SqliteWriter, 'pragma'>,
  onError: (err: Error) => void = () => {},
): Checkpointer {
  writer.pragma(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`);
  const thread = new Worker(THREAD_FILE, { workerData: { file, everyMs: CHECKPOINT_EVERY_MS } });
  // The thread never keeps the process alive: a server's close stops it, and a process that ends
  // without closing its database leaves a WAL that the next open checkpoints.
  thread.unref();
  let running = true;
  const takeBack = (err: Error) => {
    if (!running) return;
    running = false;
    release();
    writer.pragma(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    onError(err);
  };
  const waiting = new Set<() => void>();
  const release = () => {
    for (const resolve of waiting) resolve();
    waiting.clear();
  };
  thread.on('message', (message: { failed?: string; caughtUp?: boolean }) => {
    if (message.caughtUp) release();
    if (message.failed) takeBack(new Error(`the SQLite checkpoint thread stopped: ${message.failed}`));
  });
  thread.on('error', takeBack);
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  return {
    caughtUp() {
      if (!running) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(done);
          resolve();
        }, CATCH_UP_MS);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiting.add(done);
        thread.postMessage('now');
      });
    },
    async stop() {
      release();
      running = false;
      // waited for: a process with nothing else to do must not end before the thread has closed its connection
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
