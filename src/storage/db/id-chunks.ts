// The one way a statement names a list of IDs (`where … in (…)`): a chunk of them at a time. Each ID
// is a bind parameter, and a list as long as a document makes it (a program's flagged resources run
// to hundreds of thousands) would pass SQLite's 32,766 or PostgreSQL's 65,535 parameters
// (BIND_PARAMETER_LIMITS, bulk-insert.ts), which the engines refuse. Rows are inserted in bulk by
// bulk-insert.ts, which sizes its own statements.

/** IDs per statement: far below either engine's limit, with room for the statement's other parameters. */
export const ID_CHUNK = 500;

/** `items` in slices of at most `size`. */
export function idChunks<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The rows `read` answers for every chunk of `ids`, one statement after the other (in a
 * transaction they share one connection), concatenated in chunk order. No IDs: no statement.
 * Row by row, never spread into one call: a chunk of 500 tests can answer 5,000,000 flagged
 * resources, past what a call's arguments can hold (RangeError).
 */
export async function chunked<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (const chunk of idChunks(ids)) for (const row of await read(chunk)) out.push(row);
  return out;
}
