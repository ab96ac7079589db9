// Continuous control monitoring from the checkers people run (issue 38; docs/check-results.md):
//   tests.checks                 the checks a test is made of, as a JSON list of `<tool>:<id>`
//                                names (`prowler:s3_bucket_default_encryption`); '[]' for a test
//                                fed by pushed results only. An import of a checker's report
//                                (POST /v1/tests/results/imports) reads the tests naming its checks.
//   test_resources.import_scope  the scope of the import that reported the resource ('' for an
//                                import without one); NULL for a resource a pushed result or a
//                                program document wrote. A re-import of a scope replaces only that
//                                scope's resources, so two accounts imported apart do not remove
//                                each other's.
//   test_result_imports          the last import of each format and request scope: the file's
//                                SHA-256, the organization's tests data version after it and its
//                                answer. The same file again, with no test changed since (the
//                                version unmoved), is answered from it without being read again
//                                (docs/check-results.md, "The same report again").
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tests')
    .addColumn('checks', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('test_resources').addColumn('import_scope', 'text').execute();
  await db.schema
    .createTable('test_result_imports')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    // the request's scope, '' without one (the file's own follows from the file)
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('tests_version', 'bigint', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('test_result_imports_pk', ['organization_id', 'format', 'scope'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('test_result_imports').ifExists().execute();
  await db.schema.alterTable('test_resources').dropColumn('import_scope').execute();
  await db.schema.alterTable('tests').dropColumn('checks').execute();
}
