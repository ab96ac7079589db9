// The plain reads several repositories make the same way on their own tables: one row by a
// unique column, and an organization's rows in the order they were created.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.ts';

type Q = Kysely<Database>;

/** The tables read whole, one row at a time or the organization's rows oldest first. */
type CreatedTable = 'admins' | 'credentials' | 'webhook_endpoints';

/** The one row of `table` whose `column` is `value` (an ID or another unique column). */
export async function findRowBy<T extends CreatedTable>(
  db: Q,
  table: T,
  column: keyof Database[T] & string,
  value: string,
): Promise<Selectable<Database[T]> | undefined> {
  return (await (db as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where(column as string, '=', value)
    .executeTakeFirst()) as Selectable<Database[T]> | undefined;
}

/** The organization's rows of `table`, oldest first (then by ID). */
export async function listOldestFirst<T extends CreatedTable>(db: Q, table: T, organizationId: string): Promise<Selectable<Database[T]>[]> {
  return (await (db as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as Selectable<Database[T]>[];
}
