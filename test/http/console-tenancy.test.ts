// Tenancy limits of the console and `cds`, on every database engine: an organization is served
// only by a deployment of its own region (two regional deployments may share a database), and an
// organization has at most MAX_ACTIVE_CREDENTIALS_PER_ORG active credentials.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { runCli } from '../harness/process.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import type { SystemContext } from '../../src/domain/context.ts';

const PASSWORD = 'correct horse battery staple';
const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

interface Signed {
  cookie: string;
  csrf: string;
}

function signInRaw(url: string, email: string, password = PASSWORD) {
  return api(url, '/console/api/session', undefined, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

async function signIn(url: string, email: string): Promise<Signed> {
  const res = await signInRaw(url, email);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken };
}

function consoleCall(url: string, s: Signed, path: string, body?: unknown) {
  const headers: Record<string, string> = { cookie: s.cookie, 'x-csrf-token': s.csrf };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return api(url, path, undefined, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const createViaConsole = (url: string, s: Signed, name: string) =>
  consoleCall(url, s, '/console/api/credentials', { name, accessLevel: 'read_only' });

async function orgWithAdmin(system: SystemContext, name: string, email: string) {
  const org = await createOrganization({ ctx: system, input: { name } });
  await createAdminFor({ ctx: system, input: { organizationId: org.id, email, password: PASSWORD }, actor: cli });
  return org;
}

for (const dialect of dialects) {
  describe(`region enforcement: two regional deployments on one database (${dialect})`, () => {
    let us: TestServer;
    let eu: TestServer;
    let usOrgId: string;

    before(async () => {
      us = await startServer({ dialect, env: { REGION: 'us' } });
      eu = await startServer({ database: us.database, env: { REGION: 'eu' } });
      usOrgId = (await orgWithAdmin(us.system, 'US Org', 'admin@us.example')).id;
    });
    after(async () => {
      await eu?.close();
      await us?.close();
    });

    test("a us organization's administrator cannot sign in to the eu deployment: the same 401 as a wrong password, audited as a failed sign-in", async () => {
      const wrongPassword = await signInRaw(eu.url, 'admin@us.example', 'not the password');
      const otherRegion = await signInRaw(eu.url, 'admin@us.example');
      assert.equal(otherRegion.status, 401, JSON.stringify(otherRegion.body));
      assert.equal(otherRegion.headers.get('set-cookie'), null);
      assert.deepEqual(otherRegion.body.error, wrongPassword.body.error, 'nothing tells the account exists');

      const home = await signIn(us.url, 'admin@us.example');
      const log = (await consoleCall(us.url, home, '/console/api/audit-log')).body.data.map((e: any) => e.action);
      assert.deepEqual(log.slice(0, 3), ['session.sign_in', 'session.sign_in_failed', 'session.sign_in_failed']);
    });

    test('a us session is not accepted by the eu deployment, so it cannot make eu credentials there', async () => {
      const home = await signIn(us.url, 'admin@us.example');
      const res = await createViaConsole(eu.url, home, 'from the wrong region');
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'unauthorized');
      assert.equal((await consoleCall(eu.url, home, '/console/api/credentials')).status, 401);
      const made = await createViaConsole(us.url, home, 'at home');
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal((await consoleCall(us.url, home, '/console/api/credentials')).body.data.length, 1);
    });

    test('`cds credential create` on the eu deployment refuses a us organization, naming both regions', async () => {
      const res = await runCli(['credential', 'create', '--org', usOrgId, '--access', 'read_only'], { ...us.database.env, REGION: 'eu' });
      assert.notEqual(res.code, 0, res.stdout);
      assert.match(res.stderr, /region us/);
      assert.match(res.stderr, /eu/);
      assert.doesNotMatch(res.stdout, /cds_secret_/);
      const ok = await runCli(['credential', 'create', '--org', usOrgId, '--access', 'read_only', '--json'], {
        ...us.database.env,
        REGION: 'us',
      });
      assert.equal(ok.code, 0, ok.stderr);
    });
  });

  describe(`active credentials per organization are capped (${dialect})`, () => {
    const MAX = 3;
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env: { MAX_ACTIVE_CREDENTIALS_PER_ORG: String(MAX), RATE_LIMIT_MAX: '100000' } });
    });
    after(() => server?.close());

    test('the (max+1)-th active credential is refused with 400 validation_failed naming the limit; revoked ones do not count', async () => {
      await orgWithAdmin(server.system, 'Capped', 'cap@example.com');
      const s = await signIn(server.url, 'cap@example.com');
      const made: string[] = [];
      for (let i = 1; i <= MAX; i++) {
        const res = await createViaConsole(server.url, s, `integration ${i}`);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        made.push(res.body.data.id);
      }
      const refused = await createViaConsole(server.url, s, 'one too many');
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'validation_failed');
      assert.match(refused.body.error.message, new RegExp(`at most ${MAX} active credentials`));
      assert.deepEqual(refused.body.error.details, [
        { field: 'credentials', message: `at most ${MAX} active credentials per organization; revoke one first` },
      ]);
      assert.equal((await consoleCall(server.url, s, '/console/api/credentials')).body.data.length, MAX, 'nothing was created');

      const revoked = await consoleCall(server.url, s, `/console/api/credentials/${made[0]}/revoke`, {});
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal((await createViaConsole(server.url, s, 'replacement')).status, 201);
      assert.equal((await createViaConsole(server.url, s, 'again one too many')).status, 400);
    });

    test('concurrent creations cannot pass the cap', async () => {
      await orgWithAdmin(server.system, 'Raced', 'race@example.com');
      const s = await signIn(server.url, 'race@example.com');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => createViaConsole(server.url, s, `racer ${i}`)));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [...Array(MAX).fill(201), ...Array(8 - MAX).fill(400)], JSON.stringify(results.map((r) => r.body)));
      assert.equal((await consoleCall(server.url, s, '/console/api/credentials')).body.data.length, MAX);
    });

    test('`cds credential create` is capped too; the credentials it made still work', async () => {
      const client = await createOrgWithCredential(server.system, { name: 'CLI capped' });
      for (let i = 1; i < MAX; i++) {
        const res = await runCli(['credential', 'create', '--org', client.organizationId, '--access', 'read_only'], {
          ...server.database.env,
          MAX_ACTIVE_CREDENTIALS_PER_ORG: String(MAX),
        });
        assert.equal(res.code, 0, res.stderr);
      }
      const refused = await runCli(['credential', 'create', '--org', client.organizationId, '--access', 'read_only'], {
        ...server.database.env,
        MAX_ACTIVE_CREDENTIALS_PER_ORG: String(MAX),
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, new RegExp(`at most ${MAX} active credentials`));
      assert.doesNotMatch(refused.stdout, /cds_secret_/);
      assert.equal((await api(server.url, '/v1/frameworks', await getToken(server.url, client))).status, 200);
    });
  });
}
