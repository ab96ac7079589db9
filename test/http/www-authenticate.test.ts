// Every /v1 401 carries the RFC 6750 challenge: `Bearer` alone when the request sent no bearer
// token, `Bearer error="invalid_token", error_description="…"` when the token it sent is no good
// (malformed, unknown, expired, stale or revoked). Other answers carry none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { changeCredentialAccess } from '../../src/domain/auth/change-credential-access.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { newAccessToken } from '../../src/domain/auth/secrets.ts';

const env = { UNAUTHENTICATED_RATE_LIMIT_MAX: '10000', RATE_LIMIT_MAX: '10000' };
const INVALID_TOKEN = /^Bearer error="invalid_token", error_description="[^"\\]+"$/;

type Res = Awaited<ReturnType<typeof api>>;

function assert401(res: Res, code: string, challenge: string | RegExp) {
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
  const header = res.headers.get('www-authenticate');
  assert.ok(header !== null, 'WWW-Authenticate is sent');
  if (typeof challenge === 'string') assert.equal(header, challenge);
  else assert.match(header, challenge);
}

for (const dialect of dialects) {
  describe(`WWW-Authenticate on 401 (${dialect})`, () => {
    let server: TestServer;
    let client: Client;
    let offsetMs = 0;
    before(async () => {
      server = await startServer({ dialect, env, now: () => Date.now() + offsetMs });
      client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
    });
    after(() => server?.close());

    test('no Authorization header: `Bearer`, without an error attribute', async () => {
      assert401(await api(server.url, '/v1/frameworks'), 'unauthorized', 'Bearer');
    });

    test('another scheme (Basic) is no bearer token either: `Bearer`, without an error attribute', async () => {
      const res = await api(server.url, '/v1/controls', undefined, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      assert401(res, 'unauthorized', 'Bearer');
    });

    test('a malformed bearer token: invalid_token', async () => {
      assert401(await api(server.url, '/v1/frameworks', 'not-a-token'), 'unauthorized', INVALID_TOKEN);
      const empty = await api(server.url, '/v1/frameworks', undefined, { headers: { authorization: 'Bearer ' } });
      assert401(empty, 'unauthorized', INVALID_TOKEN);
    });

    test('a well-formed token the service never issued: invalid_token', async () => {
      assert401(await api(server.url, '/v1/policies', newAccessToken()), 'unauthorized', INVALID_TOKEN);
    });

    test('an expired token: invalid_token (token_stale)', async () => {
      const token = await getToken(server.url, client);
      offsetMs = 3600_000;
      try {
        assert401(await api(server.url, '/v1/frameworks', token), 'token_stale', INVALID_TOKEN);
      } finally {
        offsetMs = 0;
      }
    });

    test('a token whose credential changed access level: invalid_token (token_stale)', async () => {
      const changing = await addCredential(server.system, client.organizationId, 'read_only');
      const token = await getToken(server.url, changing);
      await changeCredentialAccess({ ctx: server.system, input: { credentialId: changing.credentialId, accessLevel: 'read_write' } });
      assert401(await api(server.url, '/v1/frameworks', token), 'token_stale', INVALID_TOKEN);
    });

    test('a token of a revoked credential: invalid_token (token_revoked)', async () => {
      const victim = await addCredential(server.system, client.organizationId, 'read_write');
      const token = await getToken(server.url, victim);
      await revokeCredential({ ctx: server.system, input: { credentialId: victim.credentialId } });
      assert401(await api(server.url, '/v1/frameworks', token), 'token_revoked', INVALID_TOKEN);
      // a write too: the challenge comes before the Idempotency-Key check
      const write = await api(server.url, '/v1/vulnerabilities', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'www-auth-1' },
        body: '{}',
      });
      assert401(write, 'token_revoked', INVALID_TOKEN);
    });

    test('an unknown /v1 path without a token is challenged like a known one', async () => {
      assert401(await api(server.url, '/v1/no-such-thing'), 'unauthorized', 'Bearer');
    });

    test('answers other than 401 carry no challenge', async () => {
      const token = await getToken(server.url, client);
      const ok = await api(server.url, '/v1/frameworks', token);
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('www-authenticate'), null);
      const missing = await api(server.url, '/v1/controls/no-such-control', token);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('www-authenticate'), null);
    });
  });
}
