// The upgrade to per-kind data versions (migration 0007), on every database engine: an
// organization stored by the previous version (one data_version) keeps working, each kind's
// counter starts at its old version (so none goes back), and a write then bumps only its kinds.
// Migrating back down leaves one data_version no lower than any counter.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { addCredential, api, getToken, startServer, type TestServer } from '../harness/server.ts';
import { migrateToLatest, migratorFor } from '../../src/storage/db/migrate.ts';

const PREVIOUS = '0006_idempotency_outcome';

for (const dialect of dialects) {
  describe(`data versions across the upgrade (${dialect})`, () => {
    let database: TestDatabase;
    let server: TestServer | undefined;
    const orgId = randomUUID();

    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      await server?.close();
      await database?.drop();
    });

    const versions = async () =>
      (
        await sql<
          Record<string, number | string>
        >`select controls_version, policies_version, evidence_version, tests_version, vulnerabilities_version from organizations where id = ${orgId}`.execute(
          database.db.kysely,
        )
      ).rows[0];

    test('an organization of the previous version keeps its version in every kind, and a write bumps only its kind', async () => {
      const down = await (await migratorFor(database.db)).migrateTo(PREVIOUS);
      assert.equal(down.error, undefined);
      await sql`insert into organizations (id, name, region, plan, data_version, created_at)
                values (${orgId}, 'Old org', 'eu', 'framework,control,policy,evidence,test,vulnerability', 7, 0)`.execute(
        database.db.kysely,
      );
      await migrateToLatest(database.db);
      assert.deepEqual(Object.values(await versions()).map(Number), [7, 7, 7, 7, 7]);

      server = await startServer({ database, env: { RATE_LIMIT_MAX: '100000' } });
      const client = await addCredential(server.system, orgId, 'read_write');
      const token = await getToken(server.url, client);
      assert.equal((await api(server.url, '/v1/controls', token)).status, 200);
      const created = await api(server.url, '/v1/vulnerabilities', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ vulnerabilityId: 'VUL-0001', title: 'After the upgrade', severity: 'low', status: 'open' }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(Object.values(await versions()).map(Number), [7, 7, 7, 7, 8], 'only the vulnerabilities version moved');
      await server.close();
      server = undefined;
    });

    test('migrating down keeps one data version no lower than any counter', async () => {
      const down = await (await migratorFor(database.db)).migrateTo(PREVIOUS);
      assert.equal(down.error, undefined);
      const row = (
        await sql<{ data_version: number | string }>`select data_version from organizations where id = ${orgId}`.execute(database.db.kysely)
      ).rows[0];
      assert.ok(Number(row.data_version) >= 8, `data_version ${row.data_version}`);
      await migrateToLatest(database.db);
    });
  });
}
