// POST /oauth/token: the client-credentials grant, its own error body, region binding, its
// per-credential rate limit, and secrets and tokens stored only as hashes, on every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, stores } from '../harness/engines.ts';
import { addCredential, createOrgWithCredential, requestToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { hashSecret } from '../../src/domain/auth/secrets.ts';

const READ_SCOPES = ['framework:read', 'control:read', 'policy:read', 'evidence:read', 'test:read', 'vulnerability:read'];
const WRITE_SCOPES = ['framework:write', 'control:write', 'policy:write', 'evidence:write', 'test:write', 'vulnerability:write'];

/** Rate-limit windows are fixed 60 s windows: start a burst early enough in one that it fits. */
async function inFreshWindow(windowSec = 60, marginMs = 3000) {
  const left = windowSec * 1000 - (Date.now() % (windowSec * 1000));
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

async function postToken(url: string, body: string, contentType: string | null = 'application/json', extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(`${url}/oauth/token`, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

function grant(client: Pick<Client, 'clientId' | 'clientSecret'>, extra: Record<string, unknown> = {}) {
  return { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...extra };
}

function assertOAuthError(res: { status: number; headers: Headers; body: any }, status: number, error: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description']);
  assert.equal(res.body.error, error);
  assert.equal(typeof res.body.error_description, 'string');
  assert.ok(res.body.error_description.length > 0);
  assert.equal(res.headers.get('cache-control'), 'no-store');
}

for (const dialect of dialects) {
  describe(`POST /oauth/token (${dialect})`, () => {
    let server: TestServer;
    let readOnly: Client;
    let readWrite: Client;

    before(async () => {
      server = await startServer({ dialect });
      readOnly = await createOrgWithCredential(server.system, { accessLevel: 'read_only' });
      readWrite = await addCredential(server.system, readOnly.organizationId, 'read_write');
    });
    after(() => server?.close());

    test('a Read Only credential gets exactly {access_token, token_type Bearer, expires_in 3600, scope} with only read scopes', async () => {
      const res = await requestToken(server.url, readOnly);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
      assert.equal(res.body.token_type, 'Bearer');
      assert.equal(res.body.expires_in, 3600);
      assert.ok(Number.isInteger(res.body.expires_in));
      assert.equal(typeof res.body.access_token, 'string');
      assert.ok(res.body.access_token.length >= 32);
      const scopes = (res.body.scope as string).split(' ');
      assert.deepEqual([...scopes].sort(), [...READ_SCOPES].sort());
      assert.ok(!scopes.some((s) => s.endsWith(':write')), 'no write scope for Read Only');
      assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/json');
    });

    test('a Read & Write credential gets every read scope plus the write scopes', async () => {
      const res = await requestToken(server.url, readWrite);
      assert.equal(res.status, 200);
      const scopes = (res.body.scope as string).split(' ');
      assert.deepEqual([...scopes].sort(), [...READ_SCOPES, ...WRITE_SCOPES].sort());
      assert.ok(scopes.includes('vulnerability:write'));
      assert.ok(scopes.includes('evidence:write'));
      assert.equal(res.body.expires_in, 3600);
    });

    test('token responses are not cacheable (Cache-Control: no-store) and carry no envelope', async () => {
      const res = await requestToken(server.url, readOnly);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.body.data, undefined);
      assert.equal(res.body.meta, undefined);
    });

    test('each request issues a new, different token', async () => {
      const a = await requestToken(server.url, readOnly);
      const b = await requestToken(server.url, readOnly);
      assert.notEqual(a.body.access_token, b.body.access_token);
    });

    test('client IDs and secrets are prefixed so secret scanners can spot them', async () => {
      assert.match(readOnly.clientId, /^cds_id_/);
      assert.match(readOnly.clientSecret, /^cds_secret_/);
    });

    test('a wrong secret answers 401 invalid_client', async () => {
      const res = await postToken(server.url, JSON.stringify(grant({ clientId: readOnly.clientId, clientSecret: readWrite.clientSecret })));
      assertOAuthError(res, 401, 'invalid_client');
    });

    test('an unknown client_id answers 401 invalid_client with the same description as a wrong secret', async () => {
      const unknown = await postToken(
        server.url,
        JSON.stringify(grant({ clientId: 'cds_id_doesnotexist', clientSecret: readOnly.clientSecret })),
      );
      assertOAuthError(unknown, 401, 'invalid_client');
      const wrong = await postToken(server.url, JSON.stringify(grant({ clientId: readOnly.clientId, clientSecret: 'cds_secret_wrong' })));
      assertOAuthError(wrong, 401, 'invalid_client');
      assert.equal(unknown.body.error_description, wrong.body.error_description, 'does not reveal which client IDs exist');
    });

    test('a revoked credential answers 401 invalid_client, even with the right secret', async () => {
      const client = await addCredential(server.system, readOnly.organizationId, 'read_only');
      assert.equal((await requestToken(server.url, client)).status, 200);
      await revokeCredential({ ctx: server.system, input: { credentialId: client.credentialId } });
      const res = await postToken(server.url, JSON.stringify(grant(client)));
      assertOAuthError(res, 401, 'invalid_client');
    });

    for (const field of ['grant_type', 'client_id', 'client_secret'] as const) {
      test(`a missing ${field} answers 400 invalid_request`, async () => {
        const body: Record<string, unknown> = grant(readOnly);
        delete body[field];
        assertOAuthError(await postToken(server.url, JSON.stringify(body)), 400, 'invalid_request');
      });
    }

    test('an empty or non-string field answers 400 invalid_request', async () => {
      assertOAuthError(await postToken(server.url, JSON.stringify(grant(readOnly, { client_secret: '' }))), 400, 'invalid_request');
      assertOAuthError(await postToken(server.url, JSON.stringify(grant(readOnly, { client_id: 42 }))), 400, 'invalid_request');
    });

    test('a grant_type other than client_credentials answers 400 invalid_request', async () => {
      for (const grant_type of ['password', 'authorization_code', 'CLIENT_CREDENTIALS']) {
        const res = await postToken(server.url, JSON.stringify(grant(readOnly, { grant_type })));
        assertOAuthError(res, 400, 'invalid_request');
      }
    });

    test('a body that is not a JSON object answers 400 invalid_request', async () => {
      for (const body of ['[]', '"client_credentials"', '42', 'null', '{not json', '']) {
        const res = await postToken(server.url, body);
        assertOAuthError(res, 400, 'invalid_request');
      }
    });

    test('a form-encoded body (application/x-www-form-urlencoded) answers 400 invalid_request', async () => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: readOnly.clientId,
        client_secret: readOnly.clientSecret,
      });
      const res = await postToken(server.url, form.toString(), 'application/x-www-form-urlencoded');
      assertOAuthError(res, 400, 'invalid_request');
    });

    test('a body sent as text/plain or without Content-Type answers 400 invalid_request', async () => {
      const body = JSON.stringify(grant(readOnly));
      assertOAuthError(await postToken(server.url, body, 'text/plain'), 400, 'invalid_request');
      assertOAuthError(await postToken(server.url, body, null), 400, 'invalid_request');
    });

    test('a credential created in another region answers 401 invalid_client', async () => {
      const foreign = await createOrgWithCredential({ ...server.system, region: 'eu' });
      const res = await postToken(server.url, JSON.stringify(grant(foreign)));
      assertOAuthError(res, 401, 'invalid_client');
    });

    test('a credential works at the server of its own region and not at another on the same database', async () => {
      const eu = await startServer({ database: server.database, env: { REGION: 'eu' } });
      try {
        const euClient = await createOrgWithCredential(eu.system);
        assert.equal((await requestToken(eu.url, euClient)).status, 200);
        assertOAuthError(await postToken(server.url, JSON.stringify(grant(euClient))), 401, 'invalid_client');
        assertOAuthError(await postToken(eu.url, JSON.stringify(grant(readOnly))), 401, 'invalid_client');
      } finally {
        await eu.close();
      }
    });

    test('the secret is stored only as a hash, and tokens are stored only as hashes', async () => {
      const client = await addCredential(server.system, readOnly.organizationId, 'read_only');
      const token = (await requestToken(server.url, client)).body.access_token as string;
      const db = server.database.db.kysely;
      const credential = await db.selectFrom('credentials').selectAll().where('client_id', '=', client.clientId).executeTakeFirstOrThrow();
      assert.ok(!credential.secret_hash.includes(client.clientSecret));
      assert.ok(!JSON.stringify(credential).includes(client.clientSecret), 'the secret appears nowhere in the row');
      assert.match(credential.secret_hash, /^[0-9a-f]{64}$/);
      assert.equal(credential.secret_hash, hashSecret(client.clientSecret));

      const tokens = await db.selectFrom('access_tokens').selectAll().where('credential_id', '=', client.credentialId).execute();
      assert.equal(tokens.length, 1);
      assert.notEqual(tokens[0].token_hash, token);
      assert.ok(!JSON.stringify(tokens[0]).includes(token), 'the token appears nowhere in the row');
      assert.equal(tokens[0].token_hash, hashSecret(token));
    });
  });
}

for (const store of stores) {
  describe(`POST /oauth/token rate limit (${store})`, () => {
    let server: TestServer;

    before(async () => {
      // one proxy hop, so that tests can speak from several client addresses
      server = await startServer({ store, env: { TRUST_PROXY: '1', UNAUTHENTICATED_RATE_LIMIT_MAX: '30' } });
    });
    after(() => server?.close());

    test('10 token requests per window per credential; the 11th answers 429 temporarily_unavailable with Retry-After', async () => {
      const client = await createOrgWithCredential(server.system);
      const other = await addCredential(server.system, client.organizationId);
      await inFreshWindow();
      for (let i = 1; i <= 10; i++) {
        const res = await requestToken(server.url, client);
        assert.equal(res.status, 200, `request ${i}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), '10');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(10 - i));
      }
      const limited = await postToken(server.url, JSON.stringify(grant(client)));
      assertOAuthError(limited, 429, 'temporarily_unavailable');
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');

      // another credential of the same organization is unaffected
      const res = await requestToken(server.url, other);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-remaining'), '9');
    });

    test("wrong secrets do not use up the credential's budget: its owner still gets tokens during a storm", async () => {
      const client = await createOrgWithCredential(server.system);
      await inFreshWindow();
      for (let i = 1; i <= 20; i++) {
        const res = await postToken(
          server.url,
          JSON.stringify(grant({ clientId: client.clientId, clientSecret: `cds_secret_guess${i}` })),
          'application/json',
          { 'x-forwarded-for': '203.0.113.66' },
        );
        assertOAuthError(res, 401, 'invalid_client');
      }
      const res = await postToken(server.url, JSON.stringify(grant(client)), 'application/json', { 'x-forwarded-for': '198.51.100.20' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('x-ratelimit-limit'), '10');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '9', 'only the issued token was charged');
    });
    test('the token limit is separate from the /v1 limit', async () => {
      const client = await createOrgWithCredential(server.system);
      await inFreshWindow();
      const token = (await requestToken(server.url, client)).body.access_token as string;
      const res = await fetch(`${server.url}/v1/frameworks`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '50');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '49');
    });

    test('failed requests count per client address; past the limit failures answer 429, and the right secret is still answered', async () => {
      const client = await createOrgWithCredential(server.system);
      const from = { 'x-forwarded-for': '203.0.113.77' };
      await inFreshWindow();
      for (let i = 1; i <= 30; i++) {
        // unknown client, wrong secret and malformed client ID alike
        const bad = [
          grant({ clientId: client.clientId, clientSecret: 'cds_secret_nope' }),
          grant({ clientId: 'cds_id_AAAAAAAAAAAAAAAA', clientSecret: 'x' }),
          grant({ clientId: 'x'.repeat(100), clientSecret: 'x' }),
        ][i % 3];
        const res = await postToken(server.url, JSON.stringify(bad), 'application/json', from);
        assertOAuthError(res, 401, 'invalid_client');
        assert.equal(res.headers.get('x-ratelimit-limit'), '30');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(30 - i));
      }
      // now failures from that address answer 429, known client ID or not (the answer does not tell which)
      const descriptions = new Set<string>();
      for (const bad of [
        grant({ clientId: client.clientId, clientSecret: 'cds_secret_nope' }),
        grant({ clientId: 'cds_id_AAAAAAAAAAAAAAAA', clientSecret: 'x' }),
        grant({ clientId: 'x'.repeat(100), clientSecret: 'x' }),
      ]) {
        const limited = await postToken(server.url, JSON.stringify(bad), 'application/json', from);
        assertOAuthError(limited, 429, 'temporarily_unavailable');
        descriptions.add(limited.body.error_description.replace(/\d+ s\.$/, ''));
        const retryAfter = Number(limited.headers.get('retry-after'));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      }
      assert.equal(descriptions.size, 1, [...descriptions].join(' | '));
      // the right secret from that address is answered, charged to the credential's budget only
      const ok = await postToken(server.url, JSON.stringify(grant(client)), 'application/json', from);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.headers.get('x-ratelimit-remaining'), '9');
      const metrics = await fetch(`${server.opsUrl}/metrics`).then((r) => r.text());
      assert.match(metrics, /^cds_rate_limit_rejections_total\{limiter="token_failure"\} [1-9]/m);
    });

    test('200 requests with client IDs not of the issued form do not lock out a right secret sent from the same address', async () => {
      const client = await createOrgWithCredential(server.system);
      const from = { 'x-forwarded-for': '203.0.113.90' };
      await inFreshWindow();
      for (let i = 1; i <= 200; i++) {
        const res = await postToken(
          server.url,
          JSON.stringify(grant({ clientId: `not-a-client-${i}`, clientSecret: 'x' })),
          'application/json',
          from,
        );
        // the cheap refusals still count per address: 401 up to the limit (30 here), then 429
        assertOAuthError(res, i <= 30 ? 401 : 429, i <= 30 ? 'invalid_client' : 'temporarily_unavailable');
      }
      const ok = await postToken(server.url, JSON.stringify(grant(client)), 'application/json', from);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.headers.get('x-ratelimit-limit'), '10', "the credential's own budget");
      assert.equal(ok.headers.get('x-ratelimit-remaining'), '9');
      // a wrong secret from that address is still refused, as the address is over its failure limit
      const wrong = await postToken(
        server.url,
        JSON.stringify(grant({ clientId: client.clientId, clientSecret: 'cds_secret_nope' })),
        'application/json',
        from,
      );
      assertOAuthError(wrong, 429, 'temporarily_unavailable');
    });

    test('wrong secrets for a known client ID past the limit are refused before their check, per address and client ID', async () => {
      const client = await createOrgWithCredential(server.system);
      const sibling = await addCredential(server.system, client.organizationId);
      const from = { 'x-forwarded-for': '203.0.113.91' };
      const guess = (i: number) => JSON.stringify(grant({ clientId: client.clientId, clientSecret: `cds_secret_guess${i}` }));
      await inFreshWindow();
      for (let i = 1; i <= 30; i++) {
        const res = await postToken(server.url, guess(i), 'application/json', from);
        assertOAuthError(res, 401, 'invalid_client');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(30 - i));
      }
      for (let i = 31; i <= 40; i++)
        assertOAuthError(await postToken(server.url, guess(i), 'application/json', from), 429, 'temporarily_unavailable');
      // past the limit the secret is not checked: even the right one, for this client ID, from this address
      assertOAuthError(
        await postToken(server.url, JSON.stringify(grant(client)), 'application/json', from),
        429,
        'temporarily_unavailable',
      );
      // the guesses did not touch the client elsewhere, nor another client from that address
      const elsewhere = await postToken(server.url, JSON.stringify(grant(client)), 'application/json', {
        'x-forwarded-for': '198.51.100.91',
      });
      assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
      assert.equal(elsewhere.headers.get('x-ratelimit-remaining'), '9', 'no guess was charged to its budget');
      const other = await postToken(server.url, JSON.stringify(grant(sibling)), 'application/json', from);
      assert.equal(other.status, 200, JSON.stringify(other.body));
    });

    test('a client_id not of the issued form answers 401 invalid_client and leaves no key derived from it in the store', async () => {
      const long = `cds_id_${'A'.repeat(121)}`; // 128 characters, the longest accepted
      for (const clientId of [long, 'cds_id_short', 'cds_id_AAAAAAAAAAAAAAA!', `${client16()}x`]) {
        const res = await postToken(server.url, JSON.stringify(grant({ clientId, clientSecret: 'cds_secret_x' })), 'application/json', {
          'x-forwarded-for': '192.0.2.200',
        });
        assertOAuthError(res, 401, 'invalid_client');
      }
      assert.ok((await longestStoreKey(server)) < 200, 'every stored key is short');
    });

    test('a client_id or client_secret over 128 characters answers 400 invalid_request naming it, before any lookup', async () => {
      const before = await storeKeyCount(server);
      const cases = [
        { field: 'client_id', body: grant({ clientId: `cds_id_${'A'.repeat(122)}`, clientSecret: 'cds_secret_x' }) },
        { field: 'client_secret', body: grant({ clientId: client16(), clientSecret: `cds_secret_${'A'.repeat(118)}` }) },
      ];
      for (const { field, body } of cases) {
        const res = await postToken(server.url, JSON.stringify(body), 'application/json', { 'x-forwarded-for': '192.0.2.201' });
        assertOAuthError(res, 400, 'invalid_request');
        assert.equal(res.body.error_description, `${field}: must be at most 128 characters.`);
      }
      // refused before the failure counter: nothing was derived from the values
      assert.equal(await storeKeyCount(server), before);
    });

    test('a body over a few KB (a huge client_id) answers 400 invalid_request and stores nothing', async () => {
      const before = await storeKeyCount(server);
      const res = await postToken(server.url, JSON.stringify(grant({ clientId: `cds_id_${'A'.repeat(1_000_000)}`, clientSecret: 'x' })));
      assertOAuthError(res, 400, 'invalid_request');
      assert.match(res.body.error_description, /body/);
      assert.equal(await storeKeyCount(server), before);
    });
  });
}

const client16 = () => `cds_id_${'B'.repeat(16)}`;

/** Keys currently held by the test's rate-limit store (memory: its maps; Redis: its key prefix). */
async function storeKeys(server: TestServer): Promise<string[]> {
  const store = server.testStore.store as any;
  if (store.kind === 'memory') return [...store.counters.keys(), ...store.backoffs.keys()];
  const redis = store.redis;
  const prefix: string = server.testStore.prefix;
  const keys: string[] = [];
  let cursor = '0';
  do {
    // the client adds its key prefix to commands but not to SCAN's pattern
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}
/**
 * Keys held other than the malformed-request counters: a 400 counts against its client address
 * (src/http/plugins/malformed-limit.ts), a key derived from the address, never from the values sent.
 */
const storeKeyCount = async (server: TestServer) => (await storeKeys(server)).filter((key) => !key.includes('malformed:')).length;
const longestStoreKey = async (server: TestServer) => Math.max(0, ...(await storeKeys(server)).map((k) => k.length));
