// Its own file because the SQLite driver (sqlite-driver.ts) makes the counter and its connections
// (sqlite-connections.ts) count with it: both import it from here.

/**
 * Counts what this process committed on its writer connection, so that a cache can tell "nothing
 * committed here since" by comparing one number (connect.ts, Db.changeStamp): asking SQLite
 * (total_changes()) on every request cost more than the rest of a warm read's bookkeeping. It moves
 * when a transaction's COMMIT has run and when a statement that is not a plain SELECT has run
 * outside a transaction (sqlite-connections.ts), never with the statements inside an open
 * transaction: those are seen by no other request until the commit, and counting them made every
 * cached grant and warm answer unprovable while one organization's import ran (issue 36).
 * Counting too many (a failed commit, a PRAGMA) only costs a cache an extra read.
 */
export class WriteCounter {
  count = 0;
}
