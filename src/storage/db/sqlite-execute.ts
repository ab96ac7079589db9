// One statement on one node:sqlite connection, as Kysely wants its result: the rows of a statement
// that returns columns, else the count of changed rows and the last inserted row ID. Shared by the
// reader (sqlite-connections.ts) and by the writer, on the event loop or in its thread
// (sqlite-writer.ts, sqlite-writer-thread.ts).
import type { CompiledQuery, QueryResult, SqliteDatabase } from 'kysely';

/** What a statement is made of: Kysely's compiled query, or the same two fields after a message to the writer's thread. */
export type Statement = Pick<CompiledQuery, 'sql' | 'parameters'>;

export function execute<R>(db: SqliteDatabase, { sql, parameters }: Statement): QueryResult<R> {
  const statement = db.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
    insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
    rows: [],
  };
}
