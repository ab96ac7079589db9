// Idempotency across nodes: two real server processes (`src/main.ts`) on one database (for each
// engine: the same SQLite file, or the same PostgreSQL schema) receive the same POST
// /v1/vulnerabilities, with one Idempotency-Key, at the same time. The claim is a database row,
// so exactly one request writes the finding whatever node it reached; the others replay it or
// answer 409 idempotency_request_in_progress.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, dialects, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken } from '../harness/server.ts';
import type { BaseContext } from '../../src/domain/context.ts';

const REQUESTS = 20;

function postFinding(url: string, token: string, key: string, body: Record<string, unknown>) {
  return api(url, '/v1/vulnerabilities', token, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

for (const dialect of dialects) {
  describe(`idempotent POST /v1/vulnerabilities across two server processes (${dialect})`, () => {
    let database: TestDatabase;
    let testStore: TestStore;
    let nodes: ServerProcess[] = [];
    let system: BaseContext;

    before(async () => {
      database = await createTestDatabase(dialect);
      // one rate-limit store for both nodes when Redis is there; otherwise each has its own memory
      testStore = createTestStore(process.env.TEST_REDIS_URL ? 'redis' : 'memory');
      // (LOG_LEVEL stays at info: the harness waits for the "Server listening" line)
      const env = { RATE_LIMIT_MAX: '10000' };
      nodes = await Promise.all([
        startServerProcess({ database, store: testStore, env }),
        startServerProcess({ database, store: testStore, env }),
      ]);
      system = { db: database.db, region: 'us', now: Date.now };
    });

    after(async () => {
      await Promise.all(nodes.map((n) => n.kill()));
      await testStore?.store.close();
      await database?.drop();
    });

    it(`${REQUESTS} concurrent identical requests split across the nodes write exactly one finding`, async () => {
      const client = await createOrgWithCredential(system, { accessLevel: 'read_write' });
      // a token from each node: either works on both, this just spreads the token requests too
      const tokens = [await getToken(nodes[0].url, client), await getToken(nodes[1].url, client)];
      const key = `multi-node-${Date.now()}`;
      const body = {
        vulnerabilityId: 'VUL-0042',
        title: 'Raced finding',
        severity: 'high',
        status: 'open',
        affectedResources: [{ name: 'web-1', type: 'server', tags: ['prod'] }],
      };

      const responses = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => postFinding(nodes[i % 2].url, tokens[i % 2], key, body)),
      );

      const statuses = responses.map((r) => r.status);
      const created = responses.filter((r) => r.status === 201);
      for (const r of responses) {
        if (r.status === 201) continue;
        assert.equal(r.status, 409, `every response is 201 or 409; got ${statuses}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'idempotency_request_in_progress');
      }
      assert.ok(created.length >= 1, `at least one 201; got ${statuses}`);
      const firstWrites = created.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
      assert.equal(firstWrites.length, 1, `one response is the write itself, the other 201s replays; got ${statuses}`);
      for (const r of created) assert.deepEqual(r.body.data, firstWrites[0].body.data);

      const row = await database.db.kysely
        .selectFrom('vulnerabilities')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', client.organizationId)
        .where('finding_key', '=', 'VUL-0042')
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 1, 'exactly one finding in the database');

      // Once settled, a retry on either node replays the same response, and both nodes list one finding.
      for (const [i, node] of nodes.entries()) {
        const retry = await postFinding(node.url, tokens[i], key, body);
        assert.equal(retry.status, 201, JSON.stringify(retry.body));
        assert.equal(retry.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(retry.body.data, firstWrites[0].body.data);
        const list = await api(node.url, '/v1/vulnerabilities?source=api', tokens[i]);
        assert.equal(list.status, 200, JSON.stringify(list.body));
        assert.deepEqual(
          list.body.data.map((v: { vulnerabilityId: string }) => v.vulnerabilityId),
          ['api%23VUL-0042'],
        );
      }
    });
  });
}
