// The statements of a program apply (src/domain/program/): rows inserted in bulk, updated one
// record at a time (an apply updates only the records that changed), deleted by ID in chunks.
// Each kind's module says which tables and columns; the SQL is all here.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import type { Db } from '../../connect.ts';
import { bulkInsert, type Row, type TableName } from '../../bulk-insert.ts';

type Q = Kysely<Database>;

/** IDs per statement: far below either engine's limit on parameters. */
const CHUNK = 500;

export async function insertRows<T extends TableName>(db: Db, trx: Q, table: T, rows: readonly Row<T>[]): Promise<void> {
  if (rows.length > 0) await bulkInsert(db, table, rows, { executor: trx });
}

/** Tables whose rows carry their own `id`. */
export type OwnedTable =
  | 'entities'
  | 'people'
  | 'risks'
  | 'custom_fields'
  | 'frameworks'
  | 'requirements'
  | 'controls'
  | 'policies'
  | 'policy_documents'
  | 'policy_versions'
  | 'evidence'
  | 'attachments'
  | 'tests'
  | 'applications'
  | 'test_resources'
  | 'test_history'
  | 'tickets'
  | 'vulnerabilities'
  | 'vulnerability_resources';

export async function updateRow(
  trx: Q,
  table: OwnedTable,
  organizationId: string,
  id: string,
  set: Record<string, unknown>,
): Promise<void> {
  if (Object.keys(set).length === 0) return;
  await trx
    .updateTable(table)
    .set(set as never)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Deletes the rows of `table` whose `column` is one of `values` (and, when given, whose `subject_type` is `subjectType`). */
export async function deleteWhereIn(
  trx: Q,
  table: TableName,
  organizationId: string,
  column: string,
  values: readonly string[],
  subjectType?: string,
): Promise<void> {
  for (let i = 0; i < values.length; i += CHUNK) {
    let query = trx
      .deleteFrom(table as 'entities')
      .where('organization_id', '=', organizationId)
      .where(column as 'id', 'in', values.slice(i, i + CHUNK));
    if (subjectType !== undefined) query = query.where('subject_type' as never, '=', subjectType as never);
    await query.execute();
  }
}

/** Sets `column` to null where it holds one of `values` (stamps naming a deleted person). */
export async function clearWhereIn(
  trx: Q,
  table: TableName,
  organizationId: string,
  column: string,
  values: readonly string[],
): Promise<void> {
  for (let i = 0; i < values.length; i += CHUNK) {
    await trx
      .updateTable(table as 'entities')
      .set({ [column]: null } as never)
      .where('organization_id', '=', organizationId)
      .where(column as 'id', 'in', values.slice(i, i + CHUNK))
      .execute();
  }
}

/** Every row of a table of the organization (the program's reads are whole-organization). */
export async function selectAll<T extends TableName>(db: Q, table: T, organizationId: string, orderBy: readonly string[] = []) {
  let query = db
    .selectFrom(table as 'entities')
    .selectAll()
    .where('organization_id', '=', organizationId);
  for (const column of orderBy) query = query.orderBy(column as 'id');
  return (await query.execute()) as unknown as Database[T][];
}

/** The given columns of every row of a table of the organization (a read that leaves out what it does not need, such as a list page's denormalized JSON). */
export async function selectColumns<T extends TableName, C extends keyof Database[T] & string>(
  db: Q,
  table: T,
  organizationId: string,
  columns: readonly C[],
) {
  return (await db
    .selectFrom(table as 'entities')
    .select(columns as unknown as 'id'[])
    .where('organization_id', '=', organizationId)
    .execute()) as unknown as Pick<Database[T], C>[];
}

/** Link rows of a subject type (subject_people, subject_entities, risk_links, tickets). */
export async function selectLinks<T extends 'subject_people' | 'subject_entities' | 'risk_links' | 'tickets'>(
  db: Q,
  table: T,
  organizationId: string,
  subjectType: string,
  orderBy: readonly string[] = [],
) {
  let query = db
    .selectFrom(table as 'subject_people')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType as never);
  for (const column of orderBy) query = query.orderBy(column as 'position');
  return (await query.execute()) as unknown as Database[T][];
}
