// Db.changeStamp on SQLite: a string that changes whenever the database was written, by this
// connection or by another (another process, such as `cds` revoking a credential, or another
// connection of this one).
//
// - This connection's writes: the driver's count of statements that can write (WriteCounter in
//   sqlite-driver.ts), a number in memory.
// - Other connections' commits: `PRAGMA data_version`, which changes when another connection has
//   committed. Reading it opens a read transaction (locks on the WAL index, system calls), which
//   on every request was the largest part of a warm read's own work. So it is read once per turn
//   of the event loop: the first request of a turn reads it and the requests read from the
//   sockets in the same turn share it; it is dropped when the turn ends (setImmediate runs after
//   the poll phase) and never trusted for longer than MAX_SHARED_MS, whichever comes first.
//   A request that reaches the server after another process's commit is answered in a later turn
//   (nothing is read from a socket until the next poll), so it sees the commit: revocation still
//   takes effect at once. What shares a reading is only what was already waiting to be read when
//   the turn began, as concurrent with the commit as a request in flight.
import type { DatabaseSync } from 'node:sqlite';
import type { WriteCounter } from './sqlite-driver.ts';

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
