// The last check-results import of each format and request scope (migration 0022): what lets the
// same report again be answered without being read (src/domain/tests/import-results-run.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface LastTestResultImport {
  sha256: string;
  testsVersion: number;
  /** JSON */
  answer: string;
}

export async function findLastTestResultImport(
  db: Q,
  organizationId: string,
  format: string,
  scope: string,
): Promise<LastTestResultImport | undefined> {
  const row = await db
    .selectFrom('test_result_imports')
    .select(['sha256', 'tests_version', 'answer'])
    .where('organization_id', '=', organizationId)
    .where('format', '=', format)
    .where('scope', '=', scope)
    .executeTakeFirst();
  return row && { sha256: row.sha256, testsVersion: Number(row.tests_version), answer: row.answer };
}

/** Records the import as the last of its format and scope (replacing the one before). */
export async function saveLastTestResultImport(
  db: Q,
  organizationId: string,
  row: { format: string; scope: string; at: number } & LastTestResultImport,
): Promise<void> {
  await db
    .insertInto('test_result_imports')
    .values({
      organization_id: organizationId,
      format: row.format,
      scope: row.scope,
      sha256: row.sha256,
      tests_version: row.testsVersion,
      answer: row.answer,
      imported_at: row.at,
    })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'format', 'scope']).doUpdateSet({
        sha256: row.sha256,
        tests_version: row.testsVersion,
        answer: row.answer,
        imported_at: row.at,
      }),
    )
    .execute();
}
