// A consistent copy of a live embedded database. `VACUUM INTO` reads the database inside one read
// transaction, so the copy is the database as of one commit, whatever the server writes meanwhile
// (WAL mode lets it keep writing); a copy of the files (database, -wal, -shm) taken while it
// writes could mix two states. The copy is compact and has no WAL of its own.
import { DatabaseSync } from 'node:sqlite';

/** Writes the database at `source` as of one moment into the new file `target` (which must not exist). */
export function snapshotSqlite(source: string, target: string): void {
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    // waits for a writer holding the lock briefly (a checkpoint), like the server does
    db.exec('PRAGMA busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}
