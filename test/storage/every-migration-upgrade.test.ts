// Every migration, on every engine, upgrades a database holding data: for each migration N (in
// the order storage/db/migrate.ts lists them, so a new migration is covered without touching this
// file), a database filled with the demo organization is taken back to the state before N (N-1,
// through the down migrations), migrated to the latest again, and served: every list the API
// answers from a table that existed before N answers exactly as it did before the round trip.
// The specific upgrade tests (data-versions-upgrade, vulnerability-counts, …) check what one
// migration adds; this one checks that none of them breaks or loses what was there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { api, startServer, type TestServer, upgradeAndServe } from '../harness/server.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { MIGRATION_NAMES, migrateTo } from '../../src/storage/db/migrate.ts';

/** What the API lists, and the table each list is read from. */
const LISTS = [
  ['/v1/frameworks', 'frameworks'],
  ['/v1/controls', 'controls'],
  ['/v1/policies', 'policies'],
  ['/v1/evidence', 'evidence'],
  ['/v1/tests', 'tests'],
  ['/v1/vulnerabilities?count=100', 'vulnerabilities'],
] as const;

/** Which of LISTS' tables the database has now (asked of each table: the catalog scan would see other schemas too). */
async function existingTables(database: TestDatabase): Promise<Set<string>> {
  const found = new Set<string>();
  for (const [, table] of LISTS) {
    const present = await sql`select 1 from ${sql.table(table)} limit 1`.execute(database.db.kysely).then(
      () => true,
      () => false,
    );
    if (present) found.add(table);
  }
  return found;
}

for (const dialect of dialects) {
  describe(`every migration upgrades a filled database (${dialect})`, { concurrency: 1 }, () => {
    let database: TestDatabase;
    let server: TestServer | undefined;
    let orgId: string;
    const answers = new Map<string, unknown>();

    const read = async (url: string, token: string) => {
      const out = new Map<string, unknown>();
      for (const [path] of LISTS) {
        const res = await api(url, path, token);
        assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
        out.set(path, res.body.data);
      }
      return out;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      const loader = await startServer({ database });
      try {
        orgId = (await createDemoOrganization(loader.system, { scale: 1, name: 'Upgrade demo' })).organization.id;
      } finally {
        await loader.close();
      }
      const first = await upgradeAndServe(database, orgId);
      server = first.server;
      const token = first.token;
      for (const [path, data] of await read(server.url, token)) answers.set(path, data);
      await server.close();
      server = undefined;
      for (const [path] of LISTS) assert.ok((answers.get(path) as unknown[]).length > 0, `the demo fills ${path}`);
    });
    after(async () => {
      await server?.close();
      await database?.drop();
    });

    for (const [index, name] of MIGRATION_NAMES.entries()) {
      if (index === 0) continue; // before the first migration there is no data to keep
      const previous = MIGRATION_NAMES[index - 1];
      test(`${name}: from ${previous} with data to the latest`, async () => {
        await migrateTo(database.db, previous as Parameters<typeof migrateTo>[1]);
        const tables = await existingTables(database);
        const s = await upgradeAndServe(database, orgId);
        server = s.server;
        const now = await read(server.url, s.token);
        for (const [path, table] of LISTS) {
          if (!tables.has(table)) continue; // created by a later migration: nothing to keep
          assert.deepEqual(now.get(path), answers.get(path), `${path} after ${previous} → latest`);
        }
        await server.close();
        server = undefined;
      });
    }
  });
}
