// The writes of a pushed test result (src/domain/tests/record-result.ts): the test's row, its
// resources (replaced in bulk, keeping the row IDs of resources reported again so their assignees
// and entities stay) and one history entry. The rules live in the domain; this is SQL only.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { toTestResourceRow, type TestResourceRow } from './tests.ts';

type Q = Kysely<Database>;

/** Rows per INSERT: 15 columns each, far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const INSERT_CHUNK = 500;
/** IDs per DELETE … IN (…). */
const ID_CHUNK = 500;

/** A resource as stored (its row ID is kept for a resource reported again). */
export type StoredTestResource = TestResourceRow;

/** Every resource of the test, whatever its status. */
export async function listAllTestResources(db: Q, organizationId: string, testId: string): Promise<StoredTestResource[]> {
  const rows = await db
    .selectFrom('test_resources')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('test_id', '=', testId)
    .execute();
  return rows.map(toTestResourceRow);
}

/**
 * Replaces the test's resources with `resources`, in bulk: every current row is deleted and the
 * new set inserted (a resource reported again keeps its row ID); the assignees and entities of
 * the rows in `dropped` (resources no longer reported) are deleted with them.
 */
export async function replaceTestResources(
  db: Q,
  organizationId: string,
  testId: string,
  resources: readonly StoredTestResource[],
  dropped: readonly string[],
): Promise<void> {
  await db.deleteFrom('test_resources').where('organization_id', '=', organizationId).where('test_id', '=', testId).execute();
  for (let i = 0; i < dropped.length; i += ID_CHUNK) {
    const ids = dropped.slice(i, i + ID_CHUNK);
    for (const table of ['subject_people', 'subject_entities'] as const) {
      await db
        .deleteFrom(table)
        .where('organization_id', '=', organizationId)
        .where('subject_type', '=', 'test_resource')
        .where('subject_id', 'in', ids)
        .execute();
    }
  }
  for (let i = 0; i < resources.length; i += INSERT_CHUNK) {
    await db
      .insertInto('test_resources')
      .values(
        resources.slice(i, i + INSERT_CHUNK).map((r) => ({
          id: r.id,
          organization_id: organizationId,
          test_id: testId,
          resource_id: r.resourceId,
          name: r.name,
          status: r.status,
          last_scanned_at: r.lastScannedAt,
          first_detected: r.firstDetected,
          tags: JSON.stringify(r.tags),
          region: r.region,
          service: r.service,
          account_id: r.accountId,
          environment: r.environment,
          link: r.link,
          description: r.description,
          import_scope: r.importScope,
        })),
      )
      .execute();
  }
}

/** Sets the test's stored result and scan time, and its modifiedOn when given. */
export async function updateTestRun(
  db: Q,
  organizationId: string,
  testId: string,
  values: { result: string; lastScannedOn: number; modifiedOn?: number },
): Promise<void> {
  await db
    .updateTable('tests')
    .set({
      result: values.result,
      last_scanned_on: values.lastScannedOn,
      ...(values.modifiedOn === undefined ? {} : { modified_on: values.modifiedOn }),
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', testId)
    .execute();
}

/** Adds one scan to the test's history. */
export async function insertTestHistory(
  db: Q,
  organizationId: string,
  entry: { id: string; testId: string; scannedOn: number; status: string },
): Promise<void> {
  await db
    .insertInto('test_history')
    .values({ id: entry.id, organization_id: organizationId, test_id: entry.testId, scanned_on: entry.scannedOn, status: entry.status })
    .execute();
}
