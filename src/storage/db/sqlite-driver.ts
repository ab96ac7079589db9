// Adapts Node's built-in `node:sqlite` (its connections: sqlite-open.ts) to Kysely's SqliteDialect.
import type { DatabaseSync } from 'node:sqlite';
import { SqliteDialect, type Driver } from 'kysely';
import { ReadBesideWriteDriver, WriterLock } from './sqlite-connections.ts';
import { preparedStatements } from './sqlite-open.ts';
import type { SqliteWriter } from './sqlite-writer.ts';
import { WriteCounter } from './sqlite-write-counter.ts';

/**
 * Kysely's SQLite dialect over node:sqlite: `writer` runs transactions and writes, one at a time
 * (on the event loop or in its thread: sqlite-writer.ts); `reader`, when given (a file database),
 * runs plain SELECTs outside transactions at once, beside them (sqlite-connections.ts).
 */
export function nodeSqliteDialect(
  writer: SqliteWriter,
  options: { writes?: WriteCounter; reader?: DatabaseSync; writerLock?: WriterLock } = {},
): SqliteDialect {
  const writes = options.writes ?? new WriteCounter();
  const writerLock = options.writerLock ?? new WriterLock();
  const reader = options.reader && preparedStatements(options.reader);
  return new (class extends SqliteDialect {
    override createDriver(): Driver {
      return new ReadBesideWriteDriver(writer, reader, writes, writerLock);
    }
    // the driver above is the dialect's only use of its database
  })({ database: () => Promise.reject(new Error('not used: the driver holds the connections')) });
}
