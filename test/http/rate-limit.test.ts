// Rate limiting of /v1 on every rate-limit store: 50 requests per fixed 60 s window per
// credential, shared by all its tokens (and all nodes), errors included; the rate-limit headers;
// and the per-address limit on requests that fail authentication.
import { revokeCredential } from '../../src/domain/auth/credentials.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, stores, type TestStore } from '../harness/engines.ts';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
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

    test('5 failed authentications per window; then 429, even for a valid token, until the window ends', async () => {
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
        // The address is refused before any token lookup until its window ends, so a valid token
        // from the same address is refused too.
        assertLimited(await api(server.url, '/v1/frameworks', token), 5);
        assertLimited(await api(server.url, '/v1/nothing-here'), 5);
        // Endpoints outside /v1 are not affected.
        assert.equal((await api(server.url, '/healthz')).status, 200);
        assert.equal((await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
        })).status, 200);
        const metrics = await api(server.opsUrl, '/metrics');
        assert.match(metrics.body as string, /^cds_rate_limit_rejections_total\{limiter="unauthenticated"\} [1-9]/m);
      } finally {
        await server.close();
      }
    });

    test('revoked tokens are real tokens: they answer token_revoked and do not count as guesses', async () => {
      const server = await startServer({ store, env });
      try {
        const client = await createOrgWithCredential(server.system);
        const token = await getToken(server.url, client);
        await revokeCredential({ ctx: server.system, input: { credentialId: client.credentialId } });
        await inFreshWindow();
        for (let i = 1; i <= 8; i++) {
          const res = await api(server.url, '/v1/frameworks', token);
          assert.equal(res.status, 401, `request ${i}`);
          assert.equal(res.body.error.code, 'token_revoked');
        }
        // the address is still allowed its 5 failed guesses
        assert.equal((await api(server.url, '/v1/frameworks', newAccessToken())).body.error.code, 'unauthorized');
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
        assertLimited(await api(server.url, '/v1/frameworks'), 5);
        const limited = await api(server.url, '/v1/frameworks', token);
        assertLimited(limited, 5);
        const resetMs = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetMs - Date.now()) + 50));
        assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
        assert.equal((await api(server.url, '/v1/frameworks')).status, 401);
      } finally {
        await server.close();
      }
    });

    test('behind a trusted proxy the limit is per forwarded client address', async () => {
      const server = await startServer({ store, env: { ...env, TRUST_PROXY: 'true' } });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
        await inFreshWindow();
        for (let i = 1; i <= 5; i++) assert.equal((await api(server.url, '/v1/frameworks', undefined, from('203.0.113.7'))).status, 401);
        assertLimited(await api(server.url, '/v1/frameworks', undefined, from('203.0.113.7')), 5);
        assertLimited(await api(server.url, '/v1/frameworks', token, from('203.0.113.7')), 5);
        // another client address is unaffected
        assert.equal((await api(server.url, '/v1/frameworks', token, from('198.51.100.9'))).status, 200);
        const res = await api(server.url, '/v1/frameworks', undefined, from('198.51.100.9'));
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('x-ratelimit-remaining'), '4');
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
