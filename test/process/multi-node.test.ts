// Two real server processes (`src/main.ts`) on one PostgreSQL schema and one Redis key prefix:
// a token works on every node, a revocation through the CLI takes effect at once on every node,
// the per-credential rate limit is shared by the nodes, and SIGTERM shuts a node down gracefully.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestDatabase, createTestStore, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { runCli, startServerProcess, type ServerProcess } from '../harness/process.ts';
import { addCredential, api, createOrgWithCredential, getToken, requestToken } from '../harness/server.ts';
import type { BaseContext } from '../../src/domain/context.ts';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe('two server processes on one PostgreSQL schema and one Redis prefix', {
  skip: !enabled && 'needs TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL (Redis)',
}, () => {
  let database: TestDatabase;
  let testStore: TestStore;
  let a: ServerProcess;
  let b: ServerProcess;
  let system: BaseContext;

  before(async () => {
    database = await createTestDatabase('postgres');
    testStore = createTestStore('redis');
    [a, b] = await Promise.all([startServerProcess({ database, store: testStore }), startServerProcess({ database, store: testStore })]);
    system = { db: database.db, region: 'us', now: Date.now };
  });

  after(async () => {
    await Promise.all([a?.kill(), b?.kill()].filter(Boolean));
    await testStore?.store.close();
    await database?.drop();
  });

  it('a token issued by A works on B; after `cds credential revoke` the next request is 401 token_revoked on both', async () => {
    const client = await createOrgWithCredential(system);
    const token = await getToken(a.url, client);
    for (const node of [a, b]) {
      const res = await api(node.url, '/v1/frameworks', token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }

    // `cds` runs with the nodes' settings, Redis included: it announces the revocation there.
    const revoke = await runCli(['credential', 'revoke', client.credentialId], { ...database.env, ...testStore.env });
    assert.equal(revoke.code, 0, revoke.stderr);

    for (const node of [a, b]) {
      const res = await api(node.url, '/v1/frameworks', token);
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'token_revoked');
      assert.deepEqual(res.body.error.details, []);
    }
    for (const node of [a, b]) {
      const res = await requestToken(node.url, client);
      assert.equal(res.status, 401);
      assert.equal(res.body.error, 'invalid_client');
    }
  });

  it('the 50/60 s limit per credential holds across both processes and all its tokens', async () => {
    const client = await createOrgWithCredential(system);
    // Windows are fixed 60 s windows of Redis's clock: do not start just before one ends.
    // (This process's Redis client connects in the background and refuses commands until then.)
    for (let i = 0; i < 50; i++) {
      if (
        await testStore.store.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { resetAtMs } = await testStore.store.peek('probe', 60);
    const left = resetAtMs - Date.now();
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 250));

    const tokens = [await getToken(a.url, client), await getToken(b.url, client)];
    const nodes = [a, b];
    for (let i = 1; i <= 50; i++) {
      const res = await api(nodes[i % 2].url, '/v1/frameworks', tokens[i % 2]);
      assert.equal(res.status, 200, `request ${i}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('x-ratelimit-limit'), '50');
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(50 - i), `request ${i}`);
    }
    for (const i of [51, 52]) {
      const res = await api(nodes[i % 2].url, '/v1/frameworks', tokens[i % 2]);
      assert.equal(res.status, 429, `request ${i}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'rate_limit_exceeded');
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.deepEqual(res.body.error.details, [{ retryAfterSec: retryAfter }]);
      assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    }

    // another credential of the same organization has its own window
    const other = await addCredential(system, client.organizationId);
    const res = await api(b.url, '/v1/frameworks', await getToken(b.url, other));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '49');
  });

  it('SIGTERM: the request in flight completes, new connections are refused, and the process exits 0', async () => {
    const c = await startServerProcess({ database, store: testStore });
    try {
      const client = await createOrgWithCredential(system);
      assert.equal((await api(c.url, '/healthz')).status, 200);

      // Hold a token request open: headers and half of the body now, the rest after SIGTERM.
      const body = JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      const socket = net.connect(c.port, '127.0.0.1');
      let response = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (response += chunk));
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const half = Math.floor(body.length / 2);
      socket.write(
        'POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
          body.slice(0, half),
      );
      await new Promise((r) => setTimeout(r, 300));

      const signalled = Date.now();
      c.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));

      // the listener is closed: a new connection is refused
      await assert.rejects(fetch(`${c.url}/healthz`));
      assert.equal(c.child.exitCode, null, 'the process waits for the request in flight');

      socket.write(body.slice(half));
      // keep the socket open after the response, like a keep-alive client would
      const deadline = Date.now() + 5_000;
      while (!/\r\n\r\n[\s\S]*\}/.test(response) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.match(response, /^HTTP\/1\.1 200 /, response);
      const json = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
      assert.match(json.access_token, /^cds_at_/);

      const exit = await c.stop('SIGTERM', 15_000);
      socket.destroy();
      assert.deepEqual(exit, { code: 0, signal: null }, c.stderr());
      const elapsed = Date.now() - signalled;
      assert.ok(elapsed < 10_000, `exited ${elapsed} ms after SIGTERM (grace period 10 s)`);
      assert.match(c.stdout(), /shutting down/);

      // the token issued during the shutdown is valid on the remaining nodes
      assert.equal((await api(a.url, '/v1/frameworks', json.access_token)).status, 200);
    } finally {
      await c.kill();
    }
  });

  it('SIGTERM of an idle node exits 0 promptly even with a keep-alive client connection open', async () => {
    const c = await startServerProcess({ database, store: testStore });
    try {
      // fetch keeps its connection alive after the response
      assert.equal((await api(c.url, '/healthz')).status, 200);
      const started = Date.now();
      const exit = await c.stop('SIGTERM', 15_000);
      assert.deepEqual(exit, { code: 0, signal: null }, c.stderr());
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    } finally {
      await c.kill();
    }
  });
});
