// Real outages of a dependency (docs/decisions/api-conventions.md, "Requests, errors…"): the path to PostgreSQL or Redis goes
// through a loopback TCP proxy that the test cuts and restores. While it is down, requests
// answer 503 upstream_unavailable naming the dependency, quickly; once it is back, the same
// server answers 200 again without a restart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openDb, type Db } from '../../src/storage/db/connect.ts';
import { RedisRateLimitStore } from '../../src/storage/ratelimit/redis.ts';
import { createTestDatabase, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, requestToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { startTcpProxy, targetOf, viaProxy, type TcpProxy } from '../harness/tcp-proxy.ts';

const FAST_MS = 5_000;

// A lost connection must fail the request (503), never crash the process with an unhandled
// 'error' event (pg clients checked out of the pool have no listener of their own).
const uncaught: unknown[] = [];
process.on('uncaughtException', (err) => uncaught.push(err));

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** Repeats `fn` until `ok` holds or `deadlineMs` passes; returns the last result and the tries. */
async function pollUntil<T>(fn: () => Promise<T>, ok: (v: T) => boolean, deadlineMs: number, intervalMs = 100) {
  const end = Date.now() + deadlineMs;
  let tries = 0;
  for (;;) {
    tries++;
    const value = await fn();
    if (ok(value) || Date.now() >= end) return { value, tries };
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The API port's /readyz: 503 upstream_unavailable naming no dependency (the ops listener does). */
function assertNotReady(res: { status: number; body: any }) {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'upstream_unavailable');
  assert.deepEqual(res.body.error.details, []);
  assert.doesNotMatch(JSON.stringify(res.body), /database|redis|postgres|sqlite/i);
}

function assertUpstream(res: { status: number; headers: Headers; body: any }, dependency: string) {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'upstream_unavailable');
  assert.equal(res.body.error.details.length, 1);
  assert.equal(res.body.error.details[0].dependency, dependency);
  assert.equal(typeof res.body.error.details[0].issue, 'string');
  assert.ok(res.body.error.details[0].issue.length > 0);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
  // neither SQL nor a stack trace reaches the client
  assert.doesNotMatch(JSON.stringify(res.body), /select|ECONN|\n\s+at /i);
}

describe('PostgreSQL outage', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let proxiedDb: Db;
  let server: TestServer;
  let client: Client;
  let token: string;

  before(async () => {
    database = await createTestDatabase('postgres'); // created and migrated over the direct URL
    proxy = await startTcpProxy(targetOf(process.env.TEST_DATABASE_URL!, 5432));
    proxiedDb = openDb({ databaseUrl: viaProxy(database.env.DATABASE_URL, proxy), poolSize: 5 });
    server = await startServer({ database: { ...database, db: proxiedDb }, store: 'memory' });
    client = await createOrgWithCredential(server.system);
    token = await getToken(server.url, client);
  });

  after(async () => {
    proxy?.restore();
    await server?.close();
    await proxiedDb?.close().catch(() => {});
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 upstream_unavailable (database) quickly while the path is cut, and 200 after restore', async () => {
    const before = await api(server.url, '/v1/frameworks', token);
    assert.equal(before.status, 200, JSON.stringify(before.body));

    proxy.cut();
    try {
      const { value: res, ms } = await timed(() => api(server.url, '/v1/frameworks', token));
      assertUpstream(res, 'database');
      assert.ok(ms < FAST_MS, `503 took ${ms} ms`);
      assert.equal(res.headers.get('retry-after'), '5');

      const again = await timed(() => api(server.url, '/v1/frameworks', token));
      assertUpstream(again.value, 'database');
      assert.ok(again.ms < FAST_MS, `second 503 took ${again.ms} ms`);

      const ready = await timed(() => api(server.opsUrl, '/readyz'));
      assertUpstream(ready.value, 'database');
      assert.ok(ready.ms < FAST_MS, `/readyz took ${ready.ms} ms`);
      assertNotReady(await api(server.url, '/readyz'));

      const health = await api(server.url, '/healthz');
      assert.equal(health.status, 200, 'liveness does not depend on the database');

      const tokenRes = await timed(() => requestToken(server.url, client));
      assert.equal(tokenRes.value.status, 503, JSON.stringify(tokenRes.value.body));
      assert.equal(tokenRes.value.body.error, 'temporarily_unavailable');
      assert.equal(typeof tokenRes.value.body.error_description, 'string');
      assert.ok(tokenRes.ms < FAST_MS, `token 503 took ${tokenRes.ms} ms`);
    } finally {
      proxy.restore();
    }

    const { value: after, tries } = await pollUntil(
      () => api(server.url, '/v1/frameworks', token),
      (r) => r.status === 200,
      5_000,
    );
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(tries, 1, 'the first request after restore already succeeds (the pool opens a new connection)');
    assert.equal((await api(server.url, '/readyz')).status, 200);
    assert.equal((await requestToken(server.url, client)).status, 200);
    assert.deepEqual(uncaught, []);
  });

  it('a second outage right after recovery answers 503 too, and the server recovers again', async () => {
    proxy.cut();
    try {
      assertUpstream(await api(server.url, '/v1/frameworks', token), 'database');
    } finally {
      proxy.restore();
    }
    assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
    assert.deepEqual(uncaught, []);
  });
});

describe('Redis outage (rate-limit store)', { skip: !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL (Redis)' }, () => {
  let proxy: TcpProxy;
  let testStore: TestStore;
  let server: TestServer;
  let client: Client;
  let token: string;

  before(async () => {
    proxy = await startTcpProxy(targetOf(process.env.TEST_REDIS_URL!, 6379));
    const prefix = `cds:test:outage:${process.pid}:${Date.now()}:`;
    testStore = {
      store: new RedisRateLimitStore(viaProxy(process.env.TEST_REDIS_URL!, proxy), { keyPrefix: prefix }),
      env: {},
      prefix,
    };
    // ioredis connects in the background and refuses commands until then (no offline queue)
    await pollUntil(
      () =>
        testStore.store.ping().then(
          () => true,
          () => false,
        ),
      (ok) => ok,
      5_000,
      50,
    );
    server = await startServer({ dialect: 'sqlite', testStore });
    client = await createOrgWithCredential(server.system);
    token = await getToken(server.url, client);
  });

  after(async () => {
    proxy?.restore();
    await server?.close(); // drops the SQLite database it created
    await testStore?.store.close();
    await proxy?.close();
  });

  it('answers 503 upstream_unavailable (redis) while the path is cut, then recovers by itself', async () => {
    const before = await api(server.url, '/v1/frameworks', token);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.ok(before.headers.get('x-ratelimit-remaining'));

    proxy.cut();
    try {
      const { value: res, ms } = await timed(() => api(server.url, '/v1/frameworks', token));
      assertUpstream(res, 'redis');
      assert.ok(ms < FAST_MS, `503 took ${ms} ms`);

      const ready = await timed(() => api(server.opsUrl, '/readyz'));
      assertUpstream(ready.value, 'redis');
      assert.ok(ready.ms < FAST_MS, `/readyz took ${ready.ms} ms`);
      assertNotReady(await api(server.url, '/readyz'));

      const tokenRes = await timed(() => requestToken(server.url, client));
      assert.equal(tokenRes.value.status, 503, JSON.stringify(tokenRes.value.body));
      assert.equal(tokenRes.value.body.error, 'temporarily_unavailable');
      assert.ok(tokenRes.ms < FAST_MS, `token 503 took ${tokenRes.ms} ms`);

      // a request without a token is also counted (per address) in Redis: 503, not 401
      const anonymous = await api(server.url, '/v1/frameworks');
      assertUpstream(anonymous, 'redis');
    } finally {
      proxy.restore();
    }

    // ioredis reconnects with a backoff of up to 2 s; allow a few attempts.
    const { value: after } = await pollUntil(
      () => api(server.url, '/v1/frameworks', token),
      (r) => r.status === 200,
      6_000,
      250,
    );
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal((await api(server.url, '/readyz')).status, 200);
    assert.equal((await requestToken(server.url, client)).status, 200);
    assert.deepEqual(uncaught, []);
  });
});
