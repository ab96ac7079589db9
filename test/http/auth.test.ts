// Bearer authentication and authorization of /v1, on every database engine: the 401 family
// (unauthorized, token_revoked, token_stale), regions, scopes (403 forbidden), plans
// (403 plan_restricted, checked after the scope) and tenancy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import {
  addCredential,
  api,
  createOrgWithCredential,
  getToken,
  requestToken,
  startServer,
  type Client,
  type TestServer,
} from '../harness/server.ts';
import { changeCredentialAccess } from '../../src/domain/auth/change-credential-access.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { hashSecret, newAccessToken } from '../../src/domain/auth/secrets.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { insertAccessToken } from '../../src/storage/db/repositories/auth/access-tokens.ts';
import type { Db } from '../../src/storage/db/connect.ts';

// The failed-authentication limiter is pinned in rate-limit.test.ts; here it must not interfere.
const env = { UNAUTHENTICATED_RATE_LIMIT_MAX: '10000', RATE_LIMIT_MAX: '10000' };

type Res = { status: number; headers: Headers; body: any };

/** The spec's /v1 error body: { error: { code, message, details }, meta: { requestId } }. */
function assertError(res: Res, status: number, code: string, opts: { emptyDetails?: boolean } = { emptyDetails: true }) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'meta']);
  assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'details', 'message']);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.ok(Array.isArray(res.body.error.details));
  if (opts.emptyDetails) assert.deepEqual(res.body.error.details, []);
  assert.deepEqual(Object.keys(res.body.meta), ['requestId']);
  assert.equal(typeof res.body.meta.requestId, 'string');
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
}

/** A real token row the server validates, with the scopes given instead of the access level's. */
async function tokenWithScopes(server: TestServer, client: Client, scopes: string[]): Promise<string> {
  const db = server.database.db.kysely;
  const credential = await db.selectFrom('credentials').selectAll().where('id', '=', client.credentialId).executeTakeFirstOrThrow();
  const token = newAccessToken();
  const now = server.system.now();
  await insertAccessToken(db, {
    id: randomUUID(),
    tokenHash: hashSecret(token),
    credentialId: client.credentialId,
    organizationId: client.organizationId,
    accessLevel: credential.access_level,
    scopes: scopes.join(' '),
    region: server.config.region,
    issuedAt: now,
    expiresAt: now + 3600_000,
  });
  return token;
}

async function insertFramework(db: Db, organizationId: string, name: string): Promise<string> {
  const id = randomUUID();
  await db.kysely
    .insertInto('frameworks')
    .values({
      id,
      organization_id: organizationId,
      name,
      next_audit_date: null,
      tsc_selections: '[]',
      added_by: null,
      added_on: Date.UTC(2026, 0, 1),
      last_modified_by: null,
      modified_on: null,
    })
    .execute();
  return id;
}

for (const dialect of dialects) {
  describe(`/v1 bearer authentication (${dialect})`, () => {
    let server: TestServer;
    let client: Client;
    let token: string;

    before(async () => {
      server = await startServer({ dialect, env });
      client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
    });
    after(() => server?.close());

    test('a valid token is accepted', async () => {
      const res = await api(server.url, '/v1/frameworks', token);
      assert.equal(res.status, 200);
    });

    test('the Bearer scheme is case-insensitive', async () => {
      const res = await api(server.url, '/v1/frameworks', undefined, { headers: { authorization: `bearer ${token}` } });
      assert.equal(res.status, 200);
    });

    test('a missing Authorization header answers 401 unauthorized with the spec error body', async () => {
      assertError(await api(server.url, '/v1/frameworks'), 401, 'unauthorized');
    });

    test('a malformed Authorization header answers 401 unauthorized', async () => {
      for (const authorization of [
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        `Token ${token}`,
        `Bearer ${token} extra`,
        `Bearer  ${token}x!`,
        token,
        'Bearer not-a-token',
      ]) {
        const res = await api(server.url, '/v1/frameworks', undefined, { headers: { authorization } });
        assertError(res, 401, 'unauthorized');
      }
    });

    test('an unknown token (well-formed, never issued) answers 401 unauthorized', async () => {
      assertError(await api(server.url, '/v1/frameworks', newAccessToken()), 401, 'unauthorized');
    });

    test('the client secret is not accepted as a bearer token', async () => {
      assertError(await api(server.url, '/v1/frameworks', client.clientSecret), 401, 'unauthorized');
    });

    test('an unknown /v1 route needs authentication before it answers 404', async () => {
      assertError(await api(server.url, '/v1/nothing-here'), 401, 'unauthorized');
      assertError(await api(server.url, '/v1/nothing-here', token), 404, 'not_found');
    });

    test('a percent-encoded spelling of a /v1 path is authenticated and counted like the plain one', async () => {
      const res = await api(server.url, '/%761/frameworks', token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('x-ratelimit-limit'), env.RATE_LIMIT_MAX);
      assertError(await api(server.url, '/%761/frameworks'), 401, 'unauthorized');
    });

    test('several tokens of one credential are valid at the same time', async () => {
      const tokens = [await getToken(server.url, client), await getToken(server.url, client), await getToken(server.url, client)];
      assert.equal(new Set(tokens).size, 3);
      for (const t of [...tokens, token]) assert.equal((await api(server.url, '/v1/frameworks', t)).status, 200);
    });

    test('revoking a credential makes every outstanding token answer 401 token_revoked at once', async () => {
      const victim = await addCredential(server.system, client.organizationId, 'read_only');
      const t1 = await getToken(server.url, victim);
      const t2 = await getToken(server.url, victim);
      assert.equal((await api(server.url, '/v1/frameworks', t1)).status, 200);
      await revokeCredential({ ctx: server.system, input: { credentialId: victim.credentialId } });
      assertError(await api(server.url, '/v1/frameworks', t1), 401, 'token_revoked');
      assertError(await api(server.url, '/v1/frameworks', t2), 401, 'token_revoked');
      // a new token cannot be had either
      assert.equal((await requestToken(server.url, victim)).status, 401);
      // other credentials of the organization keep working
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
    });

    test('a change of access level makes earlier tokens 401 token_stale; a new token then works', async () => {
      const changing = await addCredential(server.system, client.organizationId, 'read_only');
      const before = await getToken(server.url, changing);
      assert.equal((await api(server.url, '/v1/frameworks', before)).status, 200);
      await changeCredentialAccess({ ctx: server.system, input: { credentialId: changing.credentialId, accessLevel: 'read_write' } });
      assertError(await api(server.url, '/v1/frameworks', before), 401, 'token_stale');
      const fresh = await requestToken(server.url, changing);
      assert.equal(fresh.status, 200);
      assert.ok((fresh.body.scope as string).split(' ').includes('vulnerability:write'));
      assert.equal((await api(server.url, '/v1/frameworks', fresh.body.access_token)).status, 200);
      assertError(await api(server.url, '/v1/frameworks', before), 401, 'token_stale');
    });

    test('a token lacking the endpoint scope answers 403 forbidden', async () => {
      const t = await tokenWithScopes(server, client, ['control:read', 'policy:read', 'evidence:read', 'test:read', 'vulnerability:read']);
      assertError(await api(server.url, '/v1/frameworks', t), 403, 'forbidden');
    });

    test('a write scope grants reading the same resource, never another one', async () => {
      const write = await tokenWithScopes(server, client, ['framework:write']);
      assert.equal((await api(server.url, '/v1/frameworks', write)).status, 200);
      const other = await tokenWithScopes(server, client, ['policy:write', 'evidence:write', 'vulnerability:write']);
      assertError(await api(server.url, '/v1/frameworks', other), 403, 'forbidden');
    });

    test('a revoked credential answers token_revoked before any scope check', async () => {
      const victim = await addCredential(server.system, client.organizationId, 'read_only');
      const t = await tokenWithScopes(server, victim, ['control:read']);
      await revokeCredential({ ctx: server.system, input: { credentialId: victim.credentialId } });
      assertError(await api(server.url, '/v1/frameworks', t), 401, 'token_revoked');
    });
  });

  describe(`/v1 plans (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env });
    });
    after(() => server?.close());

    test('an organization whose plan lacks framework answers 403 plan_restricted', async () => {
      const client = await createOrgWithCredential(server.system, { plan: 'control,policy,evidence,test,vulnerability' });
      const token = await getToken(server.url, client);
      assertError(await api(server.url, '/v1/frameworks', token), 403, 'plan_restricted', { emptyDetails: false });
    });

    test('a plan change takes effect on the next request, for tokens already issued', async () => {
      const client = await createOrgWithCredential(server.system);
      const token = await getToken(server.url, client);
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId: client.organizationId, plan: 'control,vulnerability' } });
      assertError(await api(server.url, '/v1/frameworks', token), 403, 'plan_restricted', { emptyDetails: false });
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId: client.organizationId, plan: 'framework,control' } });
      assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
    });

    test('the plan is checked after the scope: a token lacking the scope on a restricted plan gets 403 forbidden', async () => {
      const client = await createOrgWithCredential(server.system, { plan: 'control' });
      const t = await tokenWithScopes(server, client, ['control:read']);
      assertError(await api(server.url, '/v1/frameworks', t), 403, 'forbidden');
    });

    test('the plan is checked after authentication: a missing token on a restricted plan gets 401', async () => {
      await createOrgWithCredential(server.system, { plan: 'control' });
      assertError(await api(server.url, '/v1/frameworks'), 401, 'unauthorized');
    });
  });

  describe(`/v1 token lifetime (${dialect})`, () => {
    let server: TestServer;
    let offsetMs = 0;

    before(async () => {
      server = await startServer({ dialect, env, now: () => Date.now() + offsetMs });
    });
    after(() => server?.close());

    test('a token is valid for 3600 s, then answers 401 token_stale; a new token then works', async () => {
      offsetMs = 0;
      try {
        const client = await createOrgWithCredential(server.system);
        const token = await getToken(server.url, client);
        offsetMs = 3590_000;
        assert.equal((await api(server.url, '/v1/frameworks', token)).status, 200);
        offsetMs = 3600_000;
        assertError(await api(server.url, '/v1/frameworks', token), 401, 'token_stale');
        offsetMs = 24 * 3600_000;
        assertError(await api(server.url, '/v1/frameworks', token), 401, 'token_stale');
        const fresh = await getToken(server.url, client);
        assert.equal((await api(server.url, '/v1/frameworks', fresh)).status, 200);
      } finally {
        offsetMs = 0;
      }
    });

    test('TOKEN_TTL_SEC sets both expires_in and the real lifetime', async () => {
      const short = await startServer({ database: server.database, env: { ...env, TOKEN_TTL_SEC: '5' }, now: () => Date.now() + offsetMs });
      try {
        offsetMs = 0;
        const client = await createOrgWithCredential(short.system);
        const res = await requestToken(short.url, client);
        assert.equal(res.body.expires_in, 5);
        offsetMs = 4000;
        assert.equal((await api(short.url, '/v1/frameworks', res.body.access_token)).status, 200);
        offsetMs = 5000;
        assertError(await api(short.url, '/v1/frameworks', res.body.access_token), 401, 'token_stale');
      } finally {
        offsetMs = 0;
        await short.close();
      }
    });
  });

  describe(`/v1 regions (${dialect})`, () => {
    let us: TestServer;
    let eu: TestServer;

    before(async () => {
      us = await startServer({ dialect, env });
      eu = await startServer({ database: us.database, env: { ...env, REGION: 'eu' } });
    });
    after(async () => {
      await eu?.close();
      await us?.close();
    });

    test('a token issued by a server of another region on the same database answers 401 unauthorized', async () => {
      const euClient = await createOrgWithCredential(eu.system);
      const euToken = await getToken(eu.url, euClient);
      assert.equal((await api(eu.url, '/v1/frameworks', euToken)).status, 200);
      assertError(await api(us.url, '/v1/frameworks', euToken), 401, 'unauthorized');

      const usClient = await createOrgWithCredential(us.system);
      const usToken = await getToken(us.url, usClient);
      assertError(await api(eu.url, '/v1/frameworks', usToken), 401, 'unauthorized');
      assert.equal((await api(us.url, '/v1/frameworks', usToken)).status, 200);
    });
  });

  describe(`/v1 tenancy (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env });
    });
    after(() => server?.close());

    test('each credential sees only its own organization’s frameworks', async () => {
      const a = await createOrgWithCredential(server.system, { name: 'Org A' });
      const b = await createOrgWithCredential(server.system, { name: 'Org B' });
      const a1 = await insertFramework(server.database.db, a.organizationId, 'A one');
      const a2 = await insertFramework(server.database.db, a.organizationId, 'A two');
      const b1 = await insertFramework(server.database.db, b.organizationId, 'B one');

      const resA = await api(server.url, '/v1/frameworks', await getToken(server.url, a));
      assert.equal(resA.status, 200);
      assert.deepEqual(resA.body.data.map((f: any) => f.frameworkId).sort(), [a1, a2].sort());

      const resB = await api(server.url, '/v1/frameworks', await getToken(server.url, b));
      assert.equal(resB.status, 200);
      assert.deepEqual(
        resB.body.data.map((f: any) => [f.frameworkId, f.frameworkName]),
        [[b1, 'B one']],
      );

      // a second credential of organization A sees A's data, not B's
      const a2client = await addCredential(server.system, a.organizationId, 'read_write');
      const resA2 = await api(server.url, '/v1/frameworks', await getToken(server.url, a2client));
      assert.deepEqual(resA2.body.data.map((f: any) => f.frameworkId).sort(), [a1, a2].sort());
    });

    test('filtering by another organization’s entity ID finds nothing', async () => {
      const a = await createOrgWithCredential(server.system, { name: 'Org C' });
      const b = await createOrgWithCredential(server.system, { name: 'Org D' });
      const entity = randomUUID();
      await server.database.db.kysely
        .insertInto('entities')
        .values({ id: entity, organization_id: b.organizationId, name: 'D entity' })
        .execute();
      const fw = await insertFramework(server.database.db, b.organizationId, 'D framework');
      await server.database.db.kysely
        .insertInto('subject_entities')
        .values({ organization_id: b.organizationId, subject_type: 'framework', subject_id: fw, entity_id: entity })
        .execute();
      await insertFramework(server.database.db, a.organizationId, 'C framework');

      const resB = await api(server.url, `/v1/frameworks?entityIds=${entity}`, await getToken(server.url, b));
      assert.deepEqual(
        resB.body.data.map((f: any) => f.frameworkId),
        [fw],
      );
      const resA = await api(server.url, `/v1/frameworks?entityIds=${entity}`, await getToken(server.url, a));
      assert.equal(resA.status, 200);
      assert.deepEqual(resA.body.data, []);
    });
  });
}
