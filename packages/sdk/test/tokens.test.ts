// Access tokens against a scripted server: requested on first use, cached, renewed shortly
// before expiry and once after `401 token_stale` / `unauthorized`, with concurrent renewals
// merged into one token request; revoked tokens and refused credentials are final; the token
// endpoint's own 429 and 503 are retried.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationError, ComplianceClient, ValidationError, type ClientOptions } from '../src/index.ts';
import {
  drop,
  fastRetries,
  issueToken,
  oauthError,
  ok,
  slow,
  startScriptedServer,
  v1Error,
  type ScriptedServer,
} from './support/scripted-server.ts';

describe('tokens (scripted server)', () => {
  let server: ScriptedServer;
  const client = (options: Partial<ClientOptions> = {}) =>
    new ComplianceClient({ baseUrl: server.url, clientId: 'cds_id_test', clientSecret: 'cds_secret_test', ...fastRetries, ...options });
  const bearer = (i: number) => server.requests[i].headers.authorization;

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('the token is requested on first use with the client credentials, then reused', async () => {
    const c = client();
    assert.equal(server.tokenRequests.length, 0, 'nothing is requested before the first call');
    for (let i = 0; i < 5; i++) await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 1);
    const t = server.tokenRequests[0];
    assert.equal(t.method, 'POST');
    assert.equal(t.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(t.body.toString()), {
      grant_type: 'client_credentials',
      client_id: 'cds_id_test',
      client_secret: 'cds_secret_test',
    });
    assert.equal(t.headers.authorization, undefined);
    assert.ok(server.requests.every((r) => r.headers.authorization === 'Bearer tok-1'));
  });

  test('concurrent first calls share one token request', async () => {
    server.scriptToken(slow(150, issueToken('shared')));
    const c = client();
    await Promise.all(Array.from({ length: 10 }, () => c.controls.list()));
    assert.equal(server.tokenRequests.length, 1);
    assert.equal(server.requests.length, 10);
    assert.ok(server.requests.every((r) => r.headers.authorization === 'Bearer shared'));
  });

  for (const code of ['token_stale', 'unauthorized'] as const) {
    test(`401 ${code}: one new token, then the request is sent again with it`, async () => {
      server.scriptToken(issueToken('first'), issueToken('second'));
      server.script(v1Error(401, code), ok([]));
      const res = await client().policies.list();
      assert.equal(res.response.attempts, 2);
      assert.equal(server.tokenRequests.length, 2);
      assert.deepEqual([bearer(0), bearer(1)], ['Bearer first', 'Bearer second']);
    });
  }

  test('a write retried after token_stale keeps its key and body', async () => {
    server.script(v1Error(401, 'token_stale'), ok({ evidenceId: 'e', modifiedOn: 1 }, 201));
    await client().vulnerabilities.update('api%23VUL-0001', { reportLink: 'https://r.example.com/1' });
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0].headers['idempotency-key'], server.requests[1].headers['idempotency-key']);
    assert.deepEqual(server.requests[0].body, server.requests[1].body);
    assert.notEqual(bearer(0), bearer(1));
  });

  test('concurrent calls refused with the same stale token renew it once', async () => {
    server.scriptToken(issueToken('old'), slow(100, issueToken('new')));
    const c = client();
    await c.auth.getAccessToken();
    server.script(...Array.from({ length: 6 }, () => v1Error(401, 'token_stale')));
    await Promise.all(Array.from({ length: 6 }, () => c.tests.list()));
    assert.equal(server.tokenRequests.length, 2, 'one token at first, one renewal for all six');
    assert.equal(server.requests.length, 12);
    assert.ok(server.requests.slice(0, 6).every((r) => r.headers.authorization === 'Bearer old'));
    assert.ok(server.requests.slice(6).every((r) => r.headers.authorization === 'Bearer new'));
  });

  test('a 401 after the renewal is thrown, not looped on', async () => {
    server.script(v1Error(401, 'token_stale'), v1Error(401, 'token_stale'), ok([]));
    await assert.rejects(client().frameworks.list(), (err: unknown) => err instanceof AuthenticationError && err.code === 'token_stale');
    assert.equal(server.requests.length, 2);
    assert.equal(server.tokenRequests.length, 2);
  });

  test('token_revoked is final: no renewal, no retry', async () => {
    server.script(v1Error(401, 'token_revoked'));
    await assert.rejects(client().frameworks.list(), (err: unknown) => {
      assert.ok(err instanceof AuthenticationError);
      assert.equal(err.status, 401);
      assert.equal(err.code, 'token_revoked');
      return true;
    });
    assert.equal(server.requests.length, 1);
    assert.equal(server.tokenRequests.length, 1);
  });

  test('a token is renewed shortly before it expires', async () => {
    // expires_in 2 s with the default 60 s skew: the skew is capped at half the lifetime.
    server.scriptToken(issueToken('short', 2), issueToken('next', 3600));
    const c = client();
    await c.frameworks.list();
    await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 1);
    await new Promise((r) => setTimeout(r, 1100));
    await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 2);
    assert.deepEqual(
      server.requests.map((r) => r.headers.authorization),
      ['Bearer short', 'Bearer short', 'Bearer next'],
    );
  });

  test('invalid_client is thrown as an AuthenticationError with the OAuth error', async () => {
    server.scriptToken(oauthError(401, 'invalid_client'));
    await assert.rejects(client().frameworks.list(), (err: unknown) => {
      assert.ok(err instanceof AuthenticationError);
      assert.equal(err.status, 401);
      assert.equal(err.code, 'invalid_client');
      assert.equal(err.message, 'scripted invalid_client');
      assert.deepEqual(err.details, []);
      assert.match(err.requestId ?? '', /^req_test_/);
      return true;
    });
    assert.equal(server.tokenRequests.length, 1);
    assert.equal(server.requests.length, 0);
    server.scriptToken(oauthError(400, 'invalid_request'));
    await assert.rejects(client().frameworks.list(), (err: unknown) => err instanceof ValidationError && err.code === 'invalid_request');
  });

  test('the token endpoint: 429 temporarily_unavailable waits Retry-After; 503 and dropped connections are retried', async () => {
    server.scriptToken(
      oauthError(429, 'temporarily_unavailable', { 'retry-after': '1' }),
      oauthError(503, 'temporarily_unavailable'),
      drop,
      issueToken('late'),
    );
    const res = await client().frameworks.list();
    assert.equal(res.response.attempts, 1);
    assert.equal(server.tokenRequests.length, 4);
    assert.ok(server.tokenRequests[1].at - server.tokenRequests[0].at >= 950);
    assert.equal(bearer(0), 'Bearer late');
  });

  test('a failed renewal is not cached: the next call asks again', async () => {
    server.scriptToken(oauthError(401, 'invalid_client'));
    const c = client();
    await assert.rejects(c.frameworks.list(), AuthenticationError);
    await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 2);
  });

  test('auth.requestToken returns a fresh token without touching the cache', async () => {
    const c = client();
    const token = await c.auth.requestToken();
    assert.equal(token.token_type, 'Bearer');
    assert.equal(token.expires_in, 3600);
    assert.equal(token.response.status, 200);
    assert.equal(await c.auth.getAccessToken(), 'tok-2');
    assert.equal(await c.auth.getAccessToken(), 'tok-2');
    assert.equal(server.tokenRequests.length, 2);
  });
});
