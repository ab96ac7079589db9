// The thread that checkpoints a server's SQLite file (sqlite-checkpoints.ts starts it): its own
// connection, a PASSIVE checkpoint every `everyMs`. A passive checkpoint copies the WAL's committed
// pages into the database file without waiting for, or blocking, the writer or the readers; when
// nothing new was committed it reads the WAL index and returns.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { file, everyMs } = workerData as { file: string; everyMs: number };
const port = parentPort!;
const db = new DatabaseSync(file);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => take(), everyMs);

/** One passive checkpoint; false once the thread has failed and stopped. */
function take(): boolean {
  try {
    checkpoint.get();
    return true;
  } catch (error) {
    // the server's writer takes the checkpoints back (sqlite-checkpoints.ts); this thread ends
    clearInterval(timer);
    port.postMessage({ failed: error instanceof Error ? error.message : String(error) });
    stop();
    return false;
  }
}

function stop(): void {
  clearInterval(timer);
  if (db.isOpen) db.close();
  port.close();
}

port.on('message', (message: unknown) => {
  if (message === 'stop') stop();
  // a writer between two slices of a bulk write (sqlite-checkpoints.ts, caughtUp)
  if (message === 'now' && take()) port.postMessage({ caughtUp: true });
});
