// Rate limiting of /v1 on every rate-limit store: 50 requests per fixed 60 s window per
// credential, shared by all its tokens (and all nodes), errors included; the rate-limit headers;
// and the per-address limit on requests that fail authentication.
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, stores, type TestStore } from '../harness/engines.ts';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import http from 'node:http';
import { newAccessToken } from '../../src/domain/auth/secrets.ts';

type Res = { status: number; headers: Headers; body: any };

/** Windows are fixed (they start on multiples of their length): start a burst early enough in one that it fits. */
async function inFreshWindow(windowSec = 60, marginMs = 3000) {
  const windowMs = windowSec * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function assertLimited(res: Res, limit: number) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'rate_limit_exceeded');
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
  const header = res.headers.get('retry-after');
  assert.match(header ?? '', /^\d+$/, 'Retry-After is whole seconds');
  const retryAfter = Number(header);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.deepEqual(res.body.error.details, [{ retryAfterSec: retryAfter }]);
  assert.equal(res.headers.get('x-ratelimit-limit'), String(limit));
  assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
  return retryAfter;
}

function assertResetHeader(res: Res, windowSec = 60) {
  const reset = res.headers.get('x-ratelimit-reset');
  assert.match(reset ?? '', /^\d+$/, 'X-RateLimit-Reset is a whole number');
  const resetMs = Number(reset) * 1000;
  const now = Date.now();
  assert.ok(resetMs > now - 1000, `reset ${reset} is not in the past`);
  assert.ok(resetMs <= now + windowSec * 1000, `reset ${reset} is within the next ${windowSec} s`);
  // seconds, not milliseconds
  assert.ok(Number(reset) < 1e11);
}

for (const store of stores) {
  describe(`/v1 rate limit per credential (${store})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ store, env: { UNAUTHENTICATED_RATE_LIMIT_MAX: '10000' } });
    });
    after(() => server?.close());

    test('50 requests per window; the 51st answers 429 rate_limit_exceeded with Retry-After, details and headers', async () => {
      const client = await createOrgWithCredential(server.system);
      const token = await getToken(server.url, client);
      await inFreshWindow();
      let reset: string | null = null;
      for (let i = 1; i <= 50; i++) {
        const res = await api(server.url, '/v1/frameworks', token);
        assert.equal(res.status, 200, `request ${i}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), '50');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(50 - i));
        assert.equal(res.headers.get('retry-after'), null, 'Retry-After only with a 429');
        assertResetHeader(res);
        reset ??= res.headers.get('x-ratelimit-reset');
        assert.equal(res.headers.get('x-ratelimit-reset'), reset, 'one fixed window for the whole burst');
      }
      const limited = await api(server.url, '/v1/frameworks', token);
      const retryAfter = assertLimited(limited, 50);
      assertResetHeader(limited);
      assert.equal(limited.headers.get('x-ratelimit-reset'), reset);
      assert.ok(Math.abs(Number(reset) * 1000 - (Date.now() + retryAfter * 1000)) <= 2000, 'Retry-After points at the reset');
      // and it stays limited
      assertLimited(await api(server.url, '/v1/frameworks', token), 50);
    });

    test('the limit is shared by all tokens of one credential', async () => {
      const client = await createOrgWithCredential(server.system);
      const tokens = [await getToken(server.url, client), await getToken(server.url, client), await getToken(server.url, client)];
      await inFreshWindow();
      for (let i = 1; i <= 50; i++) {
        const res = await api(server.url, '/v1/frameworks', tokens[i % 3]);
        assert.equal(res.status, 200, `request ${i}`);
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(50 - i));
      }
      for (const t of tokens) assertLimited(await api(server.url, '/v1/frameworks', t), 50);
      // a token issued after the limit was reached is limited too
      assertLimited(await api(server.url, '/v1/frameworks', await getToken(server.url, client)), 50);
    });

    test('another credential, of the same or another organization, is unaffected', async () => {
      const client = await createOrgWithCredential(server.system);
      const sibling = await addCredential(server.system, client.organizationId);
      const stranger = await createOrgWithCredential(server.system);
      const token = await getToken(server.url, client);
      await inFreshWindow();
      for (let i = 1; i <= 50; i++) assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
      assertLimited(await api(server.url, '/v1/frameworks', token), 50);
      for (const other of [sibling, stranger]) {
        const res = await api(server.url, '/v1/frameworks', await getToken(server.url, other));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-ratelimit-remaining'), '49');
      }
    });

    test('errors count too: 404 on unknown /v1 routes, 400 on invalid parameters, 403 on missing plan', async () => {
      const client = await createOrgWithCredential(server.system, { plan: 'control' });
      const token = await getToken(server.url, client);
      await inFreshWindow();
      const paths = ['/v1/nothing-here', '/v1/frameworks?bogus=1', '/v1/frameworks?fields=bogus', '/v1/frameworks'];
      const expected = [404, 400, 400, 403];
      for (let i = 1; i <= 50; i++) {
        const k = i % paths.length;
        const res = await api(server.url, paths[k], token);
        assert.equal(res.status, expected[k], `request ${i} ${paths[k]}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), '50');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(50 - i));
      }
      // once over the limit every request is refused before it is routed or validated
      for (const path of paths) assertLimited(await api(server.url, path, token), 50);
    });

    test('a 429 is counted in cds_rate_limit_rejections_total{limiter="api"}', async () => {
      const metrics = await api(server.opsUrl, '/metrics');
      assert.equal(metrics.status, 200);
      const line = (metrics.body as string).split('\n').find((l) => l.startsWith('cds_rate_limit_rejections_total{limiter="api"}'));
      assert.ok(line, 'a rejection of the api limiter is recorded');
      assert.ok(Number(line.split(' ').pop()) >= 1);
    });
  });

  describe(`requests that fail authentication are limited per client address (${store})`, () => {
    const env = { UNAUTHENTICATED_RATE_LIMIT_MAX: '5' };

    test('5 failed authentications per window; then failures answer 429, while a valid token from the same address still works', async () => {
      const server = await startServer({ store, env });
      try {
        const client = await createOrgWithCredential(server.system);
        const token = await getToken(server.url, client);
        await inFreshWindow();
        const bad = [undefined, 'garbage', newAccessToken(), newAccessToken(), undefined];
        for (let i = 1; i <= 5; i++) {
          const res = await api(server.url, '/v1/frameworks', bad[i - 1]);
          assert.equal(res.status, 401, `request ${i}`);
          assert.equal(res.body.error.code, 'unauthorized');
          assert.equal(res.headers.get('x-ratelimit-limit'), '5');
          assert.equal(res.headers.get('x-ratelimit-remaining'), String(5 - i));
        }
        const limited = await api(server.url, '/v1/frameworks', newAccessToken());
        assertLimited(limited, 5);
        assertResetHeader(limited);
        assertLimited(await api(server.url, '/v1/nothing-here'), 5);
        // A valid token is never refused because its address has failed attempts (clients behind
        // one NAT or load balancer share it): it is looked up first, and counts on its credential.
        const ok = await api(server.url, '/v1/frameworks', token);
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('x-ratelimit-limit'), '50');
        // Endpoints outside /v1 are not affected.
        assert.equal((await api(server.url, '/healthz')).status, 200);
        const metrics = await api(server.opsUrl, '/metrics');
        assert.match(metrics.body as string, /^cds_rate_limit_rejections_total\{limiter="unauthenticated"\} [1-9]/m);
      } finally {
        await server.close();
      }
    });

    test('a valid token still works from an address that sent 60 bad tokens', async () => {
      const server = await startServer({ store });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        await inFreshWindow();
        const statuses: number[] = [];
        for (let i = 0; i < 60; i++) statuses.push((await api(server.url, '/v1/frameworks', newAccessToken())).status);
        assert.deepEqual([statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length], [50, 10]);
        for (let i = 0; i < 3; i++) assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
      } finally {
        await server.close();
      }
    });

    test('revoked, expired and stale tokens count as failures: hammering with one gets 429', async () => {
      let clock = Date.now();
      const server = await startServer({ store, env, now: () => clock });
      try {
        const client = await createOrgWithCredential(server.system);
        const revoked = await getToken(server.url, client);
        await revokeCredential({ ctx: server.system, input: { credentialId: client.credentialId } });
        await inFreshWindow();
        // the server's clock is this test's: brought to now after the wait, since the Redis store
        // counts windows by its own (real) clock and Retry-After is their difference
        clock = Date.now();
        for (let i = 1; i <= 5; i++) {
          const res = await api(server.url, '/v1/frameworks', revoked);
          assert.equal(res.status, 401, `request ${i}`);
          assert.equal(res.body.error.code, 'token_revoked');
          assert.equal(res.headers.get('x-ratelimit-remaining'), String(5 - i));
        }
        assertLimited(await api(server.url, '/v1/frameworks', revoked), 5);
      } finally {
        await server.close();
      }
      // an expired token, on a fresh server and address window
      clock = Date.now();
      const later = await startServer({ store, env, now: () => clock });
      try {
        const expired = await getToken(later.url, await createOrgWithCredential(later.system));
        clock += 3600_000 + 1;
        await inFreshWindow();
        for (let i = 1; i <= 5; i++)
          assert.equal((await api(later.url, '/v1/frameworks', expired)).body.error.code, 'token_stale', `request ${i}`);
        assertLimited(await api(later.url, '/v1/frameworks', expired), 5);
      } finally {
        await later.close();
      }
    });

    test('two Authorization headers answer 400 validation_failed naming Authorization', async () => {
      const server = await startServer({ store, env });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        const { port } = new URL(server.url);
        for (const [first, second] of [
          [token, newAccessToken()],
          [newAccessToken(), token],
          [token, token],
        ]) {
          const res = await rawGet(Number(port), '/v1/frameworks', [
            'Authorization',
            `Bearer ${first}`,
            'authorization',
            `Bearer ${second}`,
          ]);
          assert.equal(res.status, 400, res.body);
          const body = JSON.parse(res.body);
          assert.equal(body.error.code, 'validation_failed');
          assert.deepEqual(
            body.error.details.map((d: any) => d.field),
            ['Authorization'],
          );
        }
        // one header is fine
        assert.equal((await rawGet(Number(port), '/v1/frameworks', ['authorization', `Bearer ${token}`])).status, 200);
      } finally {
        await server.close();
      }
    });

    test('successful requests do not count against the address', async () => {
      const server = await startServer({ store, env });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        await inFreshWindow();
        for (let i = 0; i < 10; i++) assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
        for (let i = 1; i <= 5; i++) assert.equal((await api(server.url, '/v1/frameworks')).status, 401, `failure ${i}`);
        assertLimited(await api(server.url, '/v1/frameworks'), 5);
      } finally {
        await server.close();
      }
    });

    test('after the window ends, the address authenticates again', async () => {
      const server = await startServer({ store, env: { ...env, UNAUTHENTICATED_RATE_LIMIT_WINDOW_SEC: '1' } });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        await inFreshWindow(1, 500);
        for (let i = 1; i <= 5; i++) assert.equal((await api(server.url, '/v1/frameworks')).status, 401, `failure ${i}`);
        const limited = await api(server.url, '/v1/frameworks');
        assertLimited(limited, 5);
        const resetMs = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetMs - Date.now()) + 50));
        assert.equal((await api(server.url, '/v1/frameworks')).status, 401);
        assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
      } finally {
        await server.close();
      }
    });

    test('behind one trusted proxy hop (TRUST_PROXY=1) the limit is per forwarded client address, the right-most entry', async () => {
      const server = await startServer({ store, env: { ...env, TRUST_PROXY: '1' } });
      try {
        const from = (xff: string) => ({ headers: { 'x-forwarded-for': xff } });
        await inFreshWindow();
        // The client forges the left entries; the proxy appends the address it saw (right-most).
        for (let i = 1; i <= 5; i++)
          assert.equal((await api(server.url, '/v1/frameworks', undefined, from(`10.9.9.${i}, 203.0.113.7`))).status, 401);
        assertLimited(await api(server.url, '/v1/frameworks', undefined, from('192.0.2.77, 203.0.113.7')), 5);
        assertLimited(await api(server.url, '/v1/frameworks', undefined, from('203.0.113.7')), 5);
        // another client address is unaffected
        const res = await api(server.url, '/v1/frameworks', undefined, from('203.0.113.7, 198.51.100.9'));
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('x-ratelimit-remaining'), '4');
      } finally {
        await server.close();
      }
    });

    test('with a list of proxy addresses, the header of a peer not on the list is ignored', async () => {
      const server = await startServer({ store, env: { ...env, TRUST_PROXY: '10.0.0.0/8, 192.168.1.5' } });
      try {
        await inFreshWindow();
        // the test client (127.0.0.1) is not a listed proxy: rotating the header changes nothing
        for (let i = 1; i <= 5; i++)
          assert.equal(
            (await api(server.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status,
            401,
          );
        assertLimited(await api(server.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': '198.51.100.99' } }), 5);
      } finally {
        await server.close();
      }
      // …while a listed peer's header is believed, up to the first address not on the list
      const trusted = await startServer({ store, env: { ...env, TRUST_PROXY: '127.0.0.1/32,10.0.0.0/8' } });
      try {
        await inFreshWindow();
        for (let i = 1; i <= 5; i++)
          assert.equal(
            (
              await api(trusted.url, '/v1/frameworks', undefined, {
                headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.8, 10.1.2.3` },
              })
            ).status,
            401,
          );
        assertLimited(await api(trusted.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': '203.0.113.8' } }), 5);
        assert.equal((await api(trusted.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 401);
      } finally {
        await trusted.close();
      }
    });

    test('a long forwarded address becomes a short key', async () => {
      const server = await startServer({ store, env: { ...env, TRUST_PROXY: '1' } });
      try {
        const junk = 'x'.repeat(8000);
        assert.equal((await api(server.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': junk } })).status, 401);
        assert.ok(Math.max(...(await storeKeys(server))) < 200, 'every stored key is short');
      } finally {
        await server.close();
      }
    });

    test('without a trusted proxy, X-Forwarded-For cannot be used to dodge the limit', async () => {
      const server = await startServer({ store, env });
      try {
        await inFreshWindow();
        for (let i = 1; i <= 5; i++) {
          const res = await api(server.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': `192.0.2.${i}` } });
          assert.equal(res.status, 401);
        }
        assertLimited(await api(server.url, '/v1/frameworks', undefined, { headers: { 'x-forwarded-for': '192.0.2.99' } }), 5);
      } finally {
        await server.close();
      }
    });
  });

  if (store === 'redis') {
    describe('two app instances sharing one Redis store share the limit', () => {
      let a: TestServer;
      let b: TestServer;
      let bStore: TestStore;

      before(async () => {
        a = await startServer({ store: 'redis' });
        // Node B has its own Redis connection on the same key prefix, as a second process would.
        bStore = createTestStore('redis', a.testStore.prefix);
        b = await startServer({ database: a.database, testStore: bStore });
      });
      after(async () => {
        await b?.close();
        await bStore?.store.close();
        await a?.close();
      });

      test('25 requests on each node, then the next on either answers 429', async () => {
        const client = await createOrgWithCredential(a.system);
        const tokenA = await getToken(a.url, client);
        const tokenB = await getToken(b.url, client);
        await inFreshWindow();
        for (let i = 1; i <= 25; i++) {
          const res = await api(a.url, '/v1/frameworks', tokenA);
          assert.equal(res.status, 200, `node A request ${i}`);
        }
        for (let i = 1; i <= 25; i++) {
          const res = await api(b.url, '/v1/frameworks', tokenB);
          assert.equal(res.status, 200, `node B request ${i}`);
          assert.equal(res.headers.get('x-ratelimit-remaining'), String(25 - i));
        }
        assertLimited(await api(a.url, '/v1/frameworks', tokenA), 50);
        assertLimited(await api(b.url, '/v1/frameworks', tokenB), 50);
        // the same token on the other node is limited as well
        assertLimited(await api(b.url, '/v1/frameworks', tokenA), 50);
      });

      test('the token endpoint limit is shared as well', async () => {
        const client = await createOrgWithCredential(a.system);
        await inFreshWindow();
        for (let i = 1; i <= 10; i++) assert.equal((await getToken(i % 2 ? a.url : b.url, client)).length > 0, true);
        for (const node of [a, b]) {
          const res = await fetch(`${node.url}/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
          });
          assert.equal(res.status, 429);
          assert.equal(((await res.json()) as { error: string }).error, 'temporarily_unavailable');
        }
      });
    });
  }
}

/** A GET with exactly the given raw headers (fetch folds repeated headers into one). */
function rawGet(port: number, path: string, headers: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: ['host', `127.0.0.1:${port}`, ...headers] as never }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Lengths of the keys the test's rate-limit store holds (memory: its maps; Redis: under its prefix). */
async function storeKeys(server: TestServer): Promise<number[]> {
  const store = server.testStore.store as any;
  if (store.kind === 'memory') return [...store.counters.keys(), ...(store.backoffs?.keys() ?? [])].map((k: string) => k.length);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await store.redis.scan(cursor, 'MATCH', `${server.testStore.prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.map((k) => k.length);
}
