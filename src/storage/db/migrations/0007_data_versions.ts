// The organization's single data version becomes one version per kind of data
// (src/shared/data-versions.ts), so that a write invalidates only the cached answers it can
// change. Each new counter starts at the old version, so no counter ever goes back across the
// upgrade; the old column is dropped, so nothing can go on reading a version no write bumps.
import { sql, type Kysely } from 'kysely';

const COLUMNS = ['controls_version', 'policies_version', 'evidence_version', 'tests_version', 'vulnerabilities_version'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('organizations')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db
    .updateTable('organizations')
    .set(Object.fromEntries(COLUMNS.map((c) => [c, sql.ref('data_version')])))
    .execute();
  await db.schema.alterTable('organizations').dropColumn('data_version').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('data_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The sum of the counters: never below the version before the upgrade, nor below any counter.
  await db
    .updateTable('organizations')
    .set({
      data_version: sql.join(
        COLUMNS.map((c) => sql.ref(c)),
        sql` + `,
      ),
    })
    .execute();
  for (const column of COLUMNS) await db.schema.alterTable('organizations').dropColumn(column).execute();
}
