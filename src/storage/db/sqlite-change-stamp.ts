// Db.changeStamp on SQLite: a string that changes whenever something was committed to the
// database, by this process or by another (such as `cds` revoking a credential).
//
// - This process's commits: the driver's count of committed transactions and single writes
//   (WriteCounter, counted in sqlite-connections.ts once the COMMIT has run), a
//   number in memory. Statements inside a transaction that is still open do not move it: nothing
//   else can read them yet (reads outside the transaction run on the reader connection, on the
//   last commit), so a grant or an answer read meanwhile is still proved by committed data.
// - Other processes' commits: `PRAGMA data_version` on the writer connection, which changes when
//   another connection has committed (this process's reader never writes). Reading it opens a
//   read transaction (locks on the WAL index, system calls), which on every request was the
//   largest part of a warm read's own work. So it is read once per turn
//   of the event loop: the first request of a turn reads it and the requests read from the
//   sockets in the same turn share it; it is dropped when the turn ends (setImmediate runs after
//   the poll phase) and never trusted for longer than MAX_SHARED_MS, whichever comes first.
//   A request that reaches the server after another process's commit is answered in a later turn
//   (nothing is read from a socket until the next poll), so it sees the commit: revocation still
//   takes effect at once. What shares a reading is only what was already waiting to be read when
//   the turn began, as concurrent with the commit as a request in flight.
import type { DatabaseSync } from 'node:sqlite';
import type { WriteCounter } from './sqlite-connections.ts';

/** The longest a reading of data_version is shared (a reading taken in the check phase itself would otherwise outlive the next poll). */
const MAX_SHARED_MS = 1;

export function changeStamp(sqlite: DatabaseSync, writes: WriteCounter): () => string {
  const otherCommits = sqlite.prepare('PRAGMA data_version');
  otherCommits.setReturnArrays(true);
  let shared: number | undefined;
  let readAt = 0;
  const forget = () => {
    shared = undefined;
  };
  return () => {
    const now = performance.now();
    if (shared === undefined || now - readAt > MAX_SHARED_MS) {
      shared = (otherCommits.get() as unknown as [number])[0];
      readAt = now;
      setImmediate(forget);
    }
    return `${shared}:${writes.count}`;
  };
}
