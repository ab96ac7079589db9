// The console's admin API (/console/api) over HTTP, on every database engine: sign-in and its
// limits, the session cookie and its end, CSRF and cross-site refusals, credentials (secret once,
// revocation effective at once on /v1), usage counts, the compliance overview (same numbers as
// /v1/frameworks), the audit log, and isolation between organizations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, stores } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import type { SystemContext } from '../../src/domain/context.ts';
import { MemoryRateLimitStore } from '../../src/storage/ratelimit/memory.ts';

const PASSWORD = 'correct horse battery staple';
const UA = 'console-api-test/1.0';
const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

interface Signed {
  cookie: string;
  csrf: string;
  body: any;
}

async function addAdmin(system: SystemContext, organizationId: string, email: string) {
  return createAdminFor({ ctx: system, input: { organizationId, email, password: PASSWORD }, actor: cli });
}

function signInRaw(url: string, email: string, password: string, headers: Record<string, string> = {}) {
  return api(url, '/console/api/session', undefined, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': UA, ...headers },
    body: JSON.stringify({ email, password }),
  });
}

async function signIn(url: string, email: string, password = PASSWORD): Promise<Signed> {
  const res = await signInRaw(url, email, password);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const setCookie = res.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0], csrf: res.body.data.csrfToken, body: res.body };
}

/** A console call with the session cookie, and (unless `csrf: false`) the CSRF header. */
function consoleCall(
  url: string,
  s: Signed,
  path: string,
  init: { method?: string; body?: unknown; csrf?: string | false; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { cookie: s.cookie, 'user-agent': UA, ...init.headers };
  if (init.csrf !== false) headers['x-csrf-token'] = init.csrf ?? s.csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return api(url, path, undefined, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

for (const dialect of dialects) {
  describe(`console admin API (${dialect})`, () => {
    let server: TestServer;
    let clock = Date.UTC(2026, 10, 20, 10, 30);
    let orgA: Client;
    let orgB: Client;

    // The rate-limit windows follow the same injected clock as the service.
    const store = new MemoryRateLimitStore(() => clock);

    before(async () => {
      server = await startServer({
        dialect,
        testStore: { store, env: {}, prefix: '' },
        now: () => clock,
        env: { CONSOLE_SIGNIN_RATE_LIMIT_MAX: '5', CONSOLE_SESSION_IDLE_SEC: '600', CONSOLE_SESSION_MAX_SEC: '3600', RATE_LIMIT_MAX: '3' },
      });
      orgA = await createOrgWithCredential(server.system, { name: 'Org A' });
      orgB = await createOrgWithCredential(server.system, { name: 'Org B' });
      await addAdmin(server.system, orgA.organizationId, 'Ada@Example.com');
      await addAdmin(server.system, orgB.organizationId, 'bob@example.com');
    });
    after(async () => {
      await server.close();
      await store.close();
    });

    test('signs in with email (any case) and password; the cookie is HttpOnly, SameSite=Strict, scoped to /console', async () => {
      const res = await signInRaw(server.url, 'ADA@example.com ', PASSWORD);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.admin.email, 'ada@example.com');
      assert.deepEqual(res.body.data.organization, { id: orgA.organizationId, name: 'Org A' });
      assert.equal(typeof res.body.data.csrfToken, 'string');
      assert.equal(res.body.data.expiresAt, clock + 600_000);
      assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
      const cookie = res.headers.get('set-cookie')!;
      assert.match(cookie, /^cds_console=cds_session_[A-Za-z0-9_-]{43}; /);
      for (const attr of ['HttpOnly', 'SameSite=Strict', 'Path=/console', 'Max-Age=3600'])
        assert.ok(cookie.includes(attr), `${attr} in ${cookie}`);
      assert.ok(!cookie.includes('Secure'), 'no Secure flag over plain HTTP');
      assert.equal(res.headers.get('cache-control'), 'no-store');
    });

    test('a wrong password and an unknown email get the same 401, and no cookie', async () => {
      const wrong = await signInRaw(server.url, 'ada@example.com', 'not the password at all');
      const unknown = await signInRaw(server.url, 'nobody@example.com', PASSWORD);
      for (const res of [wrong, unknown]) {
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'unauthorized');
        assert.equal(res.body.error.message, 'The email or password is wrong.');
        assert.equal(res.headers.get('set-cookie'), null);
      }
    });

    test('bad sign-in bodies are 400 validation_failed naming the field', async () => {
      const cases: Array<[unknown, string]> = [
        [{ email: 'a@b.co' }, 'password'],
        [{ password: 'x' }, 'email'],
        [{ email: 'a@b.co', password: 'x', extra: 1 }, 'extra'],
        [{ email: '', password: 'x' }, 'email'],
        [{ email: 'a@b.co', password: 5 }, 'password'],
      ];
      for (const [body, field] of cases) {
        const res = await api(server.url, '/console/api/session', undefined, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.ok(
          res.body.error.details.some((d: any) => d.field === field),
          `${field} in ${JSON.stringify(res.body.error.details)}`,
        );
      }
      const form = await api(server.url, '/console/api/session', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=ada%40example.com&password=x',
      });
      assert.equal(form.status, 400, 'a cross-site HTML form cannot sign anyone in');
    });

    test('failed sign-ins slow down the next attempt for that email: after 5 failures it waits 1 s, then the right password signs in', async () => {
      await addAdmin(server.system, orgA.organizationId, 'limited@example.com');
      for (let i = 0; i < 5; i++) assert.equal((await signInRaw(server.url, 'limited@example.com', 'wrong password!')).status, 401);
      const res = await signInRaw(server.url, 'limited@example.com', PASSWORD);
      assert.equal(res.status, 429);
      assert.equal(res.body.error.code, 'rate_limit_exceeded');
      assert.equal(res.headers.get('retry-after'), '1');
      assert.deepEqual(res.body.error.details, [{ retryAfterSec: 1 }]);
      clock += 1000;
      assert.equal((await signInRaw(server.url, 'limited@example.com', PASSWORD)).status, 200);
    });

    test('eleven wrong passwords do not lock the owner out: the delay doubles up to 60 s, then the right password signs in', async () => {
      await addAdmin(server.system, orgA.organizationId, 'eleven@example.com');
      await elevenWrongThenRight(server.url, 'eleven@example.com', (ms) => (clock += ms));
    });

    test('successful sign-ins do not count against any limit', async () => {
      await addAdmin(server.system, orgA.organizationId, 'busy@example.com');
      for (let i = 1; i <= 20; i++) assert.equal((await signInRaw(server.url, 'busy@example.com', PASSWORD)).status, 200, `sign-in ${i}`);
    });

    test('per client address, failures are limited to ten times the per-email allowance; other addresses are unaffected', async () => {
      clock += 900_000 - (clock % 900_000); // a fresh window for the address
      await addAdmin(server.system, orgA.organizationId, 'victim@example.com');
      // 50 failures (CONSOLE_SIGNIN_RATE_LIMIT_MAX=5, ×10) spread over many emails, none of them delayed
      for (let i = 0; i < 50; i++)
        assert.equal((await signInRaw(server.url, `guess${i % 13}@example.com`, 'wrong password!')).status, 401, `failure ${i + 1}`);
      const res = await signInRaw(server.url, 'victim@example.com', PASSWORD);
      assert.equal(res.status, 429);
      const wait = Number(res.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 900, `Retry-After ${wait}`);
      clock += wait * 1000;
      assert.equal((await signInRaw(server.url, 'victim@example.com', PASSWORD)).status, 200);
    });

    test('without a session every admin route is 401', async () => {
      for (const [method, path] of [
        ['GET', '/console/api/session'],
        ['GET', '/console/api/credentials'],
        ['GET', '/console/api/usage'],
        ['GET', '/console/api/overview'],
        ['GET', '/console/api/audit-log'],
        ['POST', '/console/api/credentials'],
        ['DELETE', '/console/api/session'],
      ]) {
        const res = await api(server.url, path, undefined, { method, headers: { cookie: 'cds_console=cds_session_forged' } });
        assert.equal(res.status, 401, `${method} ${path}`);
        assert.equal(res.body.error.code, 'unauthorized');
      }
    });

    test('creating a credential: CSRF token required, secret shown once, usable on /v1 at once', async () => {
      const s = await signIn(server.url, 'ada@example.com');
      const before = (await consoleCall(server.url, s, '/console/api/credentials')).body.data.length;
      clock += 1000;
      const body = { name: 'CI pipeline', accessLevel: 'read_write' };

      const missing = await consoleCall(server.url, s, '/console/api/credentials', { method: 'POST', body, csrf: false });
      assert.equal(missing.status, 403);
      assert.equal(missing.body.error.code, 'forbidden');
      const wrong = await consoleCall(server.url, s, '/console/api/credentials', {
        method: 'POST',
        body,
        csrf: `${s.csrf.slice(0, -2)}xx`,
      });
      assert.equal(wrong.status, 403);
      const crossSite = await consoleCall(server.url, s, '/console/api/credentials', {
        method: 'POST',
        body,
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(crossSite.status, 403);
      assert.equal(
        (await consoleCall(server.url, s, '/console/api/credentials')).body.data.length,
        before,
        'refused requests created nothing',
      );

      const created = await consoleCall(server.url, s, '/console/api/credentials', {
        method: 'POST',
        body,
        headers: { origin: server.url },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const c = created.body.data;
      assert.equal(c.name, 'CI pipeline');
      assert.equal(c.accessLevel, 'read_write');
      assert.equal(c.status, 'active');
      assert.equal(c.createdAt, clock);
      assert.equal(c.lastUsedAt, null);
      assert.match(c.clientId, /^cds_id_/);
      assert.match(c.clientSecret, /^cds_secret_/);

      const list = (await consoleCall(server.url, s, '/console/api/credentials')).body.data;
      assert.equal(list[0].id, c.id, 'newest first');
      assert.ok(!JSON.stringify(list).includes(c.clientSecret), 'the secret is never listed');
      assert.ok(list.every((x: any) => !('clientSecret' in x)));

      const token = await getToken(server.url, { clientId: c.clientId, clientSecret: c.clientSecret });
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
    });

    test('bad credential bodies are 400 validation_failed and create nothing', async () => {
      const s = await signIn(server.url, 'ada@example.com');
      const count = async () => (await consoleCall(server.url, s, '/console/api/credentials')).body.data.length;
      const before = await count();
      const cases: Array<[unknown, string]> = [
        [{ name: '', accessLevel: 'read_only' }, 'name'],
        [{ name: '   ', accessLevel: 'read_only' }, 'name'],
        [{ name: 'x'.repeat(101), accessLevel: 'read_only' }, 'name'],
        [{ name: 'ok', accessLevel: 'admin' }, 'accessLevel'],
        [{ name: 'ok' }, 'accessLevel'],
        [{ name: 'ok', accessLevel: 'read_only', scopes: ['all'] }, 'scopes'],
        [{ name: 'nul\u0000', accessLevel: 'read_only' }, 'name'],
      ];
      for (const [body, field] of cases) {
        const res = await consoleCall(server.url, s, '/console/api/credentials', { method: 'POST', body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.ok(
          res.body.error.details.some((d: any) => d.field === field),
          `${field}: ${JSON.stringify(res.body.error.details)}`,
        );
      }
      assert.equal(await count(), before);
    });

    test("revoking: needs CSRF, revokes every token at once, stays listed as revoked; another organization's is 404", async () => {
      const s = await signIn(server.url, 'ada@example.com');
      const c = (
        await consoleCall(server.url, s, '/console/api/credentials', {
          method: 'POST',
          body: { name: 'to revoke', accessLevel: 'read_only' },
        })
      ).body.data;
      const token = await getToken(server.url, { clientId: c.clientId, clientSecret: c.clientSecret });
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);

      const noCsrf = await consoleCall(server.url, s, `/console/api/credentials/${c.id}/revoke`, { method: 'POST', body: {}, csrf: false });
      assert.equal(noCsrf.status, 403);
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200, 'still active after the refused revoke');

      const foreign = await consoleCall(server.url, s, `/console/api/credentials/${orgB.credentialId}/revoke`, {
        method: 'POST',
        body: {},
      });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'not_found');

      const revoked = await consoleCall(server.url, s, `/console/api/credentials/${c.id}/revoke`, { method: 'POST', body: {} });
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.data.status, 'revoked');
      assert.equal(revoked.body.data.revokedAt, clock);
      const after = await api(server.url, '/v1/frameworks', token);
      assert.equal(after.status, 401);
      assert.equal(after.body.error.code, 'token_revoked');
      const again = await consoleCall(server.url, s, `/console/api/credentials/${c.id}/revoke`, { method: 'POST', body: {} });
      assert.equal(again.status, 200, 'revoking twice changes nothing');
      const listed = (await consoleCall(server.url, s, '/console/api/credentials')).body.data.find((x: any) => x.id === c.id);
      assert.equal(listed.status, 'revoked');

      // organization B's administrator sees only B's credentials
      const b = await signIn(server.url, 'bob@example.com');
      const bList = (await consoleCall(server.url, b, '/console/api/credentials')).body.data;
      assert.deepEqual(
        bList.map((x: any) => x.id),
        [orgB.credentialId],
      );
    });

    test("usage counts each credential's /v1 requests and rate-limited requests in the current hour", async () => {
      const s = await signIn(server.url, 'ada@example.com');
      const c = (
        await consoleCall(server.url, s, '/console/api/credentials', { method: 'POST', body: { name: 'busy', accessLevel: 'read_only' } })
      ).body.data;
      const token = await getToken(server.url, { clientId: c.clientId, clientSecret: c.clientSecret });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await api(server.url, '/v1/frameworks', token)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429], 'RATE_LIMIT_MAX=3');
      await api(server.url, '/v1/frameworks', 'cds_at_unknown'); // not a credential's request

      const usage = (await consoleCall(server.url, s, '/console/api/usage')).body.data;
      assert.equal(usage.bucketMs, 3_600_000);
      const mine = usage.credentials.find((x: any) => x.credentialId === c.id);
      assert.equal(mine.buckets.length, 24);
      assert.deepEqual(mine.totals, { requests: 5, rateLimited: 2 });
      const current = mine.buckets[23];
      assert.equal(current.start, clock - (clock % 3_600_000));
      assert.deepEqual([current.requests, current.rateLimited], [5, 2]);
      assert.ok(mine.buckets.slice(0, 23).every((b: any) => b.requests === 0));
      assert.ok(!usage.credentials.some((x: any) => x.credentialId === orgB.credentialId), 'only the own organization');

      // An hour later the counts move one bucket back; 24 hours later they are out of the window.
      clock += 3_600_000;
      const later = (
        await consoleCall(server.url, await signIn(server.url, 'ada@example.com'), '/console/api/usage')
      ).body.data.credentials.find((x: any) => x.credentialId === c.id);
      assert.deepEqual([later.buckets[22].requests, later.buckets[22].rateLimited, later.buckets[23].requests], [5, 2, 0]);
      clock += 23 * 3_600_000;
      const s2 = await signIn(server.url, 'ada@example.com');
      const gone = (await consoleCall(server.url, s2, '/console/api/usage')).body.data.credentials.find(
        (x: any) => x.credentialId === c.id,
      );
      assert.deepEqual(gone.totals, { requests: 0, rateLimited: 0 });
    });

    test('sessions end after the idle time, at their absolute end, and at sign-out', async () => {
      const idle = await signIn(server.url, 'ada@example.com');
      clock += 599_000;
      assert.equal((await consoleCall(server.url, idle, '/console/api/session')).status, 200, 'used within the idle time');
      clock += 599_000;
      assert.equal((await consoleCall(server.url, idle, '/console/api/session')).status, 200, 'the use above extended it');
      clock += 601_000;
      const expired = await consoleCall(server.url, idle, '/console/api/session');
      assert.equal(expired.status, 401);
      assert.equal(expired.body.error.code, 'unauthorized');

      const busy = await signIn(server.url, 'ada@example.com');
      for (let i = 0; i < 6; i++) {
        clock += 590_000;
        assert.equal((await consoleCall(server.url, busy, '/console/api/session')).status, 200);
      }
      clock += 590_000; // 3540 s + 590 s > CONSOLE_SESSION_MAX_SEC = 3600
      assert.equal((await consoleCall(server.url, busy, '/console/api/session')).status, 401, 'absolute end');

      const s = await signIn(server.url, 'ada@example.com');
      const noCsrf = await consoleCall(server.url, s, '/console/api/session', { method: 'DELETE', csrf: false });
      assert.equal(noCsrf.status, 403);
      const out = await consoleCall(server.url, s, '/console/api/session', { method: 'DELETE' });
      assert.equal(out.status, 204);
      // the same attributes as when it was set (in any order), so the browser drops that very cookie
      const cleared = out.headers.get('set-cookie')!;
      assert.match(cleared, /^cds_console=; /);
      for (const attr of ['Path=/console', 'Max-Age=0', 'HttpOnly', 'SameSite=Strict'])
        assert.ok(cleared.split('; ').includes(attr), `${attr} in ${cleared}`);
      assert.equal((await consoleCall(server.url, s, '/console/api/session')).status, 401, 'the old cookie no longer works');
    });

    test('the audit log records who did what, when and from where, newest first, per organization, in pages', async () => {
      clock += 1000;
      await signInRaw(server.url, 'bob@example.com', 'wrong password here');
      clock += 1000;
      const b = await signIn(server.url, 'bob@example.com');
      clock += 1000;
      const c = (
        await consoleCall(server.url, b, '/console/api/credentials', {
          method: 'POST',
          body: { name: 'audited', accessLevel: 'read_write' },
        })
      ).body.data;
      clock += 1000;
      await consoleCall(server.url, b, `/console/api/credentials/${c.id}/revoke`, { method: 'POST', body: {} });
      const log = (await consoleCall(server.url, b, '/console/api/audit-log')).body;
      const actions = log.data.map((e: any) => e.action);
      assert.deepEqual(actions.slice(0, 4), ['credential.revoke', 'credential.create', 'session.sign_in', 'session.sign_in_failed']);
      assert.equal(actions.at(-1), 'admin.create');
      const [revoke, create] = log.data;
      assert.deepEqual(revoke.actor, { type: 'admin', label: 'bob@example.com' });
      assert.deepEqual(revoke.target, { type: 'credential', id: c.id, label: `audited (${c.clientId})` });
      assert.equal(revoke.at, clock);
      assert.equal(create.at, clock - 1000);
      assert.equal(revoke.ip, '127.0.0.1');
      assert.equal(revoke.userAgent, UA);
      assert.ok(!log.data.some((e: any) => e.actor.label === 'ada@example.com'), "organization A's actions are not in B's log");

      const first = (await consoleCall(server.url, b, '/console/api/audit-log?limit=2')).body;
      assert.equal(first.data.length, 2);
      const second = (await consoleCall(server.url, b, `/console/api/audit-log?limit=2&cursor=${first.meta.nextCursor}`)).body;
      assert.deepEqual(
        [...first.data, ...second.data].map((e: any) => e.id),
        log.data.slice(0, 4).map((e: any) => e.id),
      );
      const bad = await consoleCall(server.url, b, '/console/api/audit-log?cursor=bm9wZQ');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details[0].field, 'cursor');
      const badLimit = await consoleCall(server.url, b, '/console/api/audit-log?limit=0');
      assert.equal(badLimit.status, 400);
    });

    test('the compliance overview has the same progress as GET /v1/frameworks', async () => {
      await loadDemoData(server.database.db, orgB.organizationId, { scale: 1 });
      await bumpDataVersions(server.database.db.kysely, orgB.organizationId, DATA_KINDS);
      const token = await getToken(server.url, orgB);
      const v1 = await api(server.url, '/v1/frameworks', token);
      assert.equal(v1.status, 200);
      const b = await signIn(server.url, 'bob@example.com');
      const overview = (await consoleCall(server.url, b, '/console/api/overview')).body.data;
      assert.ok(overview.frameworks.length >= 3);
      assert.deepEqual(
        overview.frameworks,
        v1.body.data.map((f: any) => ({
          frameworkId: f.frameworkId,
          frameworkName: f.frameworkName,
          complianceProgress: f.complianceProgress,
        })),
      );
      assert.ok(overview.frameworks.some((f: any) => f.complianceProgress.controls.total > 0));
      const a = await signIn(server.url, 'ada@example.com');
      assert.deepEqual(
        (await consoleCall(server.url, a, '/console/api/overview')).body.data.frameworks,
        [],
        "organization A has none of B's",
      );
    });
  });
}

describe('console cookie behind TLS', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { TRUST_PROXY: '1' } });
    const org = await createOrgWithCredential(server.system);
    await addAdmin(server.system, org.organizationId, 'tls@example.com');
  });
  after(() => server.close());

  test('is Secure when the request came over HTTPS through a trusted proxy', async () => {
    const res = await signInRaw(server.url, 'tls@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('set-cookie')!.split('; ').includes('Secure'), res.headers.get('set-cookie')!);
  });
});

/**
 * Eleven wrong passwords (waiting out each delay), then the right one: refused for the remaining
 * delay (1, 2, 4 … capped at 60 s, with CONSOLE_SIGNIN_RATE_LIMIT_MAX=5), then signed in.
 */
async function elevenWrongThenRight(url: string, email: string, advance: (ms: number) => void) {
  const waits: number[] = [];
  let failures = 0;
  while (failures < 11) {
    assert.ok(waits.length <= 10, `the delay does not keep refusing: waits ${waits.join(', ')}`);
    const res = await signInRaw(url, email, `wrong password ${failures}`);
    if (res.status === 401) failures++;
    else {
      assert.equal(res.status, 429, JSON.stringify(res.body));
      const wait = Number(res.headers.get('retry-after'));
      waits.push(wait);
      advance(wait * 1000);
    }
  }
  assert.deepEqual(waits, [1, 2, 4, 8, 16, 32]);
  const early = await signInRaw(url, email, PASSWORD);
  assert.equal(early.status, 429);
  assert.equal(early.headers.get('retry-after'), '60', 'capped at a minute');
  advance(30_000);
  assert.equal((await signInRaw(url, email, PASSWORD)).headers.get('retry-after'), '30');
  advance(30_000);
  assert.equal((await signInRaw(url, email, PASSWORD)).status, 200);
  // a success forgets the failures: the next mistake is answered at once
  assert.equal((await signInRaw(url, email, 'one more typo')).status, 401);
  assert.equal((await signInRaw(url, email, PASSWORD)).status, 200);
}

// The delay lives in the rate-limit store (shared by every node with Redis), measured on the
// service's clock.
for (const store of stores) {
  describe(`console sign-in delay on the ${store} store`, () => {
    let clock = Date.now();
    let server: TestServer;
    let org: Client;
    before(async () => {
      server = await startServer({ store, now: () => clock, env: { CONSOLE_SIGNIN_RATE_LIMIT_MAX: '5' } });
      org = await createOrgWithCredential(server.system);
    });
    after(() => server.close());

    test('eleven wrong passwords, then the right one after the delay', async () => {
      await addAdmin(server.system, org.organizationId, 'owner@example.com');
      await elevenWrongThenRight(server.url, 'owner@example.com', (ms) => (clock += ms));
    });

    test('parallel guesses cannot all pass one opening of the delay', async () => {
      await addAdmin(server.system, org.organizationId, 'parallel@example.com');
      for (let i = 0; i < 5; i++) assert.equal((await signInRaw(server.url, 'parallel@example.com', 'wrong password!')).status, 401);
      clock += 1000;
      const statuses = (
        await Promise.all(Array.from({ length: 8 }, () => signInRaw(server.url, 'parallel@example.com', 'wrong password!')))
      ).map((r) => r.status);
      assert.deepEqual(statuses.sort(), [401, 429, 429, 429, 429, 429, 429, 429]);
    });
  });
}
