// Malformed requests count against their client address on every rate-limit store (issue 28 item
// 6; docs/security.md, "Malformed requests"): past MALFORMED_RATE_LIMIT_MAX answers 400 in a
// window, the address's requests to console sign-in answer 429 for the rest of it, before their
// body is read, and so do its malformed token requests (after reading their body of at most 4 KiB:
// a well-formed token request is answered on its client ID and secret, issue 35 item 3); other
// addresses, requests with a valid token or console session, and /healthz are not affected, and
// malformed requests with a valid token do not count.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stores } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { CONSOLE_PASSWORD, consoleCall } from '../harness/console-session.ts';

type Res = Awaited<ReturnType<typeof api>>;

const LIMIT = 5;
// A day's window (windows are fixed, from midnight UTC), so that no test runs across a window's end.
const WINDOW_SEC = 86_400;
// Addresses come from X-Forwarded-For, as a proxy on this host would send them.
const env = {
  MALFORMED_RATE_LIMIT_MAX: String(LIMIT),
  MALFORMED_RATE_LIMIT_WINDOW_SEC: String(WINDOW_SEC),
  TRUST_PROXY: '127.0.0.1',
};

const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });

function signIn(server: TestServer, address: string, body: unknown): Promise<Res> {
  return api(server.url, '/console/api/session', undefined, {
    method: 'POST',
    headers: from(address, { 'content-type': 'application/json' }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function tokenRequest(server: TestServer, address: string, body: unknown): Promise<Res> {
  return api(server.url, '/oauth/token', undefined, {
    method: 'POST',
    headers: from(address, { 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });
}

/** 429 rate_limit_exceeded with Retry-After within the window and its details, as every limiter answers. */
function assertLimited(res: Res) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'rate_limit_exceeded');
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SEC, `Retry-After ${retryAfter}`);
  assert.deepEqual(res.body.error.details, [{ retryAfterSec: retryAfter }]);
  assert.equal(res.headers.get('x-ratelimit-limit'), String(LIMIT));
  assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
}

for (const store of stores) {
  describe(`malformed requests are limited per client address (${store})`, () => {
    let server: TestServer;
    let client: Client;
    let token: string;
    const email = 'admin@example.com';
    before(async () => {
      server = await startServer({ store, env });
      client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      await createAdminFor({
        ctx: server.system,
        input: { organizationId: client.organizationId, email, password: CONSOLE_PASSWORD },
        actor: { type: 'cli', id: null, label: 'test', ip: null, userAgent: null },
      });
    });
    after(() => server?.close());

    test(`${LIMIT} malformed sign-ins answer 400; then the address is refused 429 whatever it sends, and other addresses are not`, async () => {
      const address = '198.51.100.1';
      for (let i = 1; i <= LIMIT; i++) {
        const res = await signIn(server, address, { email: 'someone@example.com', unknown: i });
        assert.equal(res.status, 400, `request ${i}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.headers.get('x-ratelimit-limit'), String(LIMIT));
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(LIMIT - i));
      }
      // malformed or not, sign-in from the address waits for the window's end
      assertLimited(await signIn(server, address, { nonsense: true }));
      assertLimited(await signIn(server, address, { email, password: CONSOLE_PASSWORD }));
      // the token endpoint refuses malformed bodies with its own 429 body, but answers a right secret
      const refused = await tokenRequest(server, address, { grant_type: 'client_credentials' });
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.error, 'temporarily_unavailable');
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      const answered = await tokenRequest(server, address, {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));

      // another address signs in and gets tokens as before
      const other = '198.51.100.2';
      assert.equal((await signIn(server, other, { email, password: CONSOLE_PASSWORD })).status, 200);
      const issued = await tokenRequest(server, other, {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      const malformed = await signIn(server, other, '{"email":');
      assert.equal(malformed.status, 400);
      assert.equal(malformed.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));

      const metrics = await api(server.opsUrl, '/metrics');
      assert.match(metrics.body as string, /^cds_rate_limit_rejections_total\{limiter="malformed"\} [1-9]/m);
    });

    test('a valid token or console session from a refused address still works, and /healthz still answers', async () => {
      const address = '198.51.100.3';
      const session = await signInFrom(server, address, email);
      for (let i = 0; i < LIMIT; i++) assert.equal((await signIn(server, address, '{}')).status, 400);
      assertLimited(await signIn(server, address, '{}'));

      const read = await api(server.url, '/v1/frameworks', token, { headers: from(address) });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      const overview = await consoleCall(server.url, session, '/console/api/overview');
      assert.equal(overview.status, 200, JSON.stringify(overview.body));
      assert.equal((await api(server.url, '/healthz', undefined, { headers: from(address) })).status, 200);
    });

    test('malformed requests with a valid token count against the credential, not the address', async () => {
      const address = '198.51.100.4';
      for (let i = 0; i < LIMIT * 2; i++) {
        const res = await api(server.url, `/v1/vulnerabilities?count=7&n=${i}`, token, { headers: from(address) });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.headers.get('x-ratelimit-limit'), '50', 'the credential limit, not the address limit');
      }
      const first = await signIn(server, address, '{}');
      assert.equal(first.status, 400, JSON.stringify(first.body));
      assert.equal(first.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));
    });

    test('malformed token requests count: past the limit malformed bodies answer 429, and a right secret from the address is still answered', async () => {
      const address = '198.51.100.5';
      for (let i = 0; i < LIMIT; i++) {
        const res = await tokenRequest(server, address, { grant_type: 'password' });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error, 'invalid_request');
      }
      // every kind of malformed body: a wrong field, JSON that does not parse, another Content-Type, one too large
      const malformed: Array<{ body: string; type: string }> = [
        { body: JSON.stringify({ grant_type: 'password' }), type: 'application/json' },
        { body: '{"grant_type":', type: 'application/json' },
        { body: 'grant_type=client_credentials', type: 'application/x-www-form-urlencoded' },
        {
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'x'.repeat(10_000), client_secret: 'x' }),
          type: 'application/json',
        },
      ];
      for (const { body, type } of malformed) {
        const res = await api(server.url, '/oauth/token', undefined, {
          method: 'POST',
          headers: from(address, { 'content-type': type }),
          body,
        });
        assert.equal(res.status, 429, `${type} ${body.slice(0, 40)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'temporarily_unavailable');
        assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
      }
      // a well-formed request is judged by its client ID and secret, whatever the address sent before
      const wrong = await tokenRequest(server, address, {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: 'x',
      });
      assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
      assert.equal(wrong.body.error, 'invalid_client');
      const right = await tokenRequest(server, address, {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      assert.equal(right.status, 200, JSON.stringify(right.body));
      // and console sign-in from the address stays refused
      assertLimited(await signIn(server, address, { email, password: CONSOLE_PASSWORD }));
    });
  });
}

/** A console session started from `address` (test/harness/console-session.ts signs in from this host's own). */
async function signInFrom(server: TestServer, address: string, email: string) {
  const res = await signIn(server, address, { email, password: CONSOLE_PASSWORD });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken as string };
}
