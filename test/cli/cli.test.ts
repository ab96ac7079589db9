// The administration command `cds`, run as a real child process against each database engine:
// organizations, plans, credentials (secret shown once, never listed), revocation, usage errors;
// then a server on the same database accepts the credential the CLI created.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli, type CliResult } from '../harness/process.ts';
import { api, getToken, requestToken, startServer, type TestServer } from '../harness/server.ts';

const ALL_RESOURCES = ['framework', 'control', 'policy', 'evidence', 'test', 'vulnerability'];

function ok(res: CliResult): string {
  assert.equal(res.code, 0, `exit ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  return res.stdout;
}

function json(res: CliResult): any {
  return JSON.parse(ok(res));
}

// The engines run side by side (each spawn of the CLI costs ~0.5 s); steps within one run in order.
describe('cds on each engine', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    // concurrency is inherited from the parent: these steps depend on each other, so one at a time.
    describe(`cds (${dialect})`, { concurrency: 1 }, () => {
      let database: TestDatabase;
      let env: Record<string, string>;
      let orgId: string;
      let created: Record<string, string>; // read_write, revoked below
      let readOnly: Record<string, string>; // used for a token
      const cds = (...args: string[]) => runCli(args, env);

      before(async () => {
        database = await createTestDatabase(dialect);
        env = { ...database.env, REGION: 'us' };
      });
      after(async () => {
        await database?.drop();
      });

      it('migrate reports the database at the latest migration', async () => {
        const out = ok(await cds('migrate'));
        assert.match(out, /latest migration/);
      });

      if (dialect === 'sqlite') {
        it('migrate creates a new embedded database file (and its directory)', async () => {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-cli-'));
          try {
            const file = path.join(dir, 'nested', 'cds.sqlite');
            ok(await runCli(['migrate'], { SQLITE_PATH: file }));
            assert.ok(fs.existsSync(file));
            assert.deepEqual(json(await runCli(['org', 'list', '--json'], { SQLITE_PATH: file })), []);
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        });
      }

      it('org create --json prints the organization with its id and the full plan', async () => {
        const org = json(await cds('org', 'create', '--name', 'CLI Org', '--json'));
        assert.equal(typeof org.id, 'string');
        assert.match(org.id, /^[0-9a-f-]{36}$/);
        assert.equal(org.name, 'CLI Org');
        assert.equal(org.region, 'us');
        assert.deepEqual([...org.plan].sort(), [...ALL_RESOURCES].sort());
        orgId = org.id;
      });

      it('org list --json contains it', async () => {
        const orgs = json(await cds('org', 'list', '--json'));
        assert.ok(Array.isArray(orgs));
        const org = orgs.find((o: { id: string }) => o.id === orgId);
        assert.ok(org, JSON.stringify(orgs));
        assert.equal(org.name, 'CLI Org');
      });

      it('org update --plan changes the plan; list shows it', async () => {
        ok(await cds('org', 'update', orgId, '--plan', 'framework,control'));
        const org = json(await cds('org', 'list', '--json')).find((o: { id: string }) => o.id === orgId);
        assert.deepEqual([...org.plan].sort(), ['control', 'framework']);
      });

      it('org update with an unknown plan resource fails with a message and changes nothing', async () => {
        const res = await cds('org', 'update', orgId, '--plan', 'framework,bogus');
        assert.notEqual(res.code, 0);
        assert.match(res.stderr, /bogus/);
        assert.match(res.stderr, /framework, control, policy/); // names the allowed resources
        const org = json(await cds('org', 'list', '--json')).find((o: { id: string }) => o.id === orgId);
        assert.deepEqual([...org.plan].sort(), ['control', 'framework']);
      });

      it('org update of an unknown organization exits 4 (not_found)', async () => {
        const res = await cds('org', 'update', '00000000-0000-0000-0000-000000000000', '--plan', 'framework');
        assert.equal(res.code, 4, res.stderr);
        assert.match(res.stderr, /not_found/);
      });

      it('credential create --json prints exactly id, clientId, clientSecret, accessLevel, organizationId', async () => {
        const c = json(await cds('credential', 'create', '--org', orgId, '--access', 'read_write', '--json'));
        assert.deepEqual(Object.keys(c).sort(), ['accessLevel', 'clientId', 'clientSecret', 'id', 'organizationId']);
        assert.match(c.clientId, /^cds_id_[A-Za-z0-9_-]+$/);
        assert.match(c.clientSecret, /^cds_secret_[A-Za-z0-9_-]{20,}$/);
        assert.equal(c.accessLevel, 'read_write');
        assert.equal(c.organizationId, orgId);
        created = c;
      });

      it('credential create without --json shows the secret once, with a warning', async () => {
        const out = ok(await cds('credential', 'create', '--org', orgId, '--access', 'read_only'));
        const id = /client_id:\s+(cds_id_\S+)/.exec(out)?.[1];
        const secret = /client_secret:\s+(cds_secret_\S+)/.exec(out)?.[1];
        const credentialId = /Created credential (\S+)/.exec(out)?.[1];
        assert.ok(id && secret && credentialId, out);
        assert.match(out, /shown only once/);
        readOnly = { id: credentialId, clientId: id, clientSecret: secret };
      });

      it('credential create --access bogus fails non-zero with a message', async () => {
        const res = await cds('credential', 'create', '--org', orgId, '--access', 'bogus', '--json');
        assert.notEqual(res.code, 0);
        assert.equal(res.stdout, '');
        assert.match(res.stderr, /accessLevel|read_only/);
        // nothing was created: the list test below still counts two credentials
      });

      it('credential create for an unknown organization exits 4', async () => {
        const res = await cds('credential', 'create', '--org', '00000000-0000-0000-0000-000000000000', '--access', 'read_only');
        assert.equal(res.code, 4, res.stderr);
      });

      it('credential create without --access is a usage error (exit 2)', async () => {
        const res = await cds('credential', 'create', '--org', orgId);
        assert.equal(res.code, 2);
        assert.match(res.stderr, /--access/);
        assert.match(res.stderr, /Usage: cds/);
      });

      it('credential list --json never contains a secret or its hash', async () => {
        const res = await cds('credential', 'list', '--org', orgId, '--json');
        const list = json(res);
        assert.equal(list.length, 2);
        for (const c of list) {
          assert.ok(!('clientSecret' in c) && !('secretHash' in c) && !('secret_hash' in c), JSON.stringify(c));
          assert.equal(c.status, 'active');
          assert.equal(c.organizationId, orgId);
        }
        assert.ok(!res.stdout.includes(created.clientSecret));
        assert.ok(!res.stdout.includes(readOnly.clientSecret));
        assert.ok(!res.stdout.includes('cds_secret_'));
        const table = ok(await cds('credential', 'list', '--org', orgId));
        assert.match(table, /ID\s+NAME\s+CLIENT ID\s+ACCESS\s+STATUS/);
        assert.ok(!table.includes('cds_secret_'));
        assert.ok(table.includes(created.clientId));
      });

      it('the secret the CLI printed obtains a token from a server on the same database', async () => {
        let server: TestServer | undefined;
        try {
          server = await startServer({ database });
          const token = await getToken(server.url, readOnly as { clientId: string; clientSecret: string });
          const res = await api(server.url, '/v1/frameworks', token);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          const rw = await requestToken(server.url, created as { clientId: string; clientSecret: string });
          assert.equal(rw.status, 200, JSON.stringify(rw.body));
          assert.match(rw.body.scope, /vulnerability:write/);
        } finally {
          await server?.close(); // does not drop the shared database
        }
      });

      it('credential revoke ID revokes; list shows it revoked; the secret no longer obtains a token', async () => {
        const out = ok(await cds('credential', 'revoke', created.id));
        assert.match(out, /revoked/);
        const list = json(await cds('credential', 'list', '--org', orgId, '--json'));
        const byId = new Map(list.map((c: { id: string; status: string }) => [c.id, c.status]));
        assert.equal(byId.get(created.id), 'revoked');
        assert.equal(byId.get(readOnly.id), 'active');

        let server: TestServer | undefined;
        try {
          server = await startServer({ database });
          const res = await requestToken(server.url, created as { clientId: string; clientSecret: string });
          assert.equal(res.status, 401);
          assert.equal(res.body.error, 'invalid_client');
        } finally {
          await server?.close();
        }
      });

      it('credential revoke of an unknown ID exits 4', async () => {
        const res = await cds('credential', 'revoke', '00000000-0000-0000-0000-000000000000');
        assert.equal(res.code, 4, res.stderr);
        assert.match(res.stderr, /not_found/);
      });

      it('admin create reads the password from stdin; the administrator can sign in to the console', async () => {
        const password = 'a long enough password';
        const res = await runCli(['admin', 'create', '--org', orgId, '--email', 'Grace@Example.com', '--json'], env, {
          stdin: `${password}\n`,
        });
        const admin = json(res);
        assert.equal(admin.email, 'grace@example.com');
        assert.equal(admin.organizationId, orgId);
        assert.ok(!res.stdout.includes(password) && !res.stderr.includes(password), 'the password is never printed');
        const list = json(await cds('admin', 'list', '--org', orgId, '--json'));
        assert.deepEqual(
          list.map((a: { email: string }) => a.email),
          ['grace@example.com'],
        );
        assert.ok(!JSON.stringify(list).includes('scrypt'), 'no password hash is listed');

        let server: TestServer | undefined;
        try {
          server = await startServer({ database });
          const signIn = await api(server.url, '/console/api/session', undefined, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'grace@example.com', password }),
          });
          assert.equal(signIn.status, 200);
          const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
          const log = await api(server.url, '/console/api/audit-log', undefined, { headers: { cookie } });
          const actions = log.body.data.map((e: { action: string; actor: { type: string } }) => `${e.action}:${e.actor.type}`);
          // the CLI's own changes are audited too, as the operator on this host
          assert.ok(actions.includes('admin.create:cli'), actions.join());
          assert.ok(actions.includes('credential.create:cli'), actions.join());
          assert.ok(actions.includes('credential.revoke:cli'), actions.join());
        } finally {
          await server?.close();
        }
      });

      it('admin create refuses a short password (exit 1) and a taken email', async () => {
        const short = await runCli(['admin', 'create', '--org', orgId, '--email', 'short@example.com'], env, { stdin: 'too short\n' });
        assert.equal(short.code, 1, short.stderr);
        assert.match(short.stderr, /^validation_failed: .*\n {2}password must be at least 12 characters$/m);
        const taken = await runCli(['admin', 'create', '--org', orgId, '--email', 'GRACE@example.com'], env, {
          stdin: 'another long password\n',
        });
        assert.equal(taken.code, 1, taken.stderr);
        assert.match(taken.stderr, /\n {2}email is already an administrator account/);
        const unknownOrg = await runCli(['admin', 'create', '--org', 'nope', '--email', 'x@example.com'], env, {
          stdin: 'another long password\n',
        });
        assert.equal(unknownOrg.code, 4, unknownOrg.stderr);
        assert.equal((await cds('admin', 'create', '--org', orgId)).code, 2, 'no --email is a usage error');
      });

      it('admin reset-password prints a new password once, stores only its hash and ends the sessions', async () => {
        const oldPassword = 'a long enough password'; // set by the admin create step above
        let server: TestServer | undefined;
        try {
          server = await startServer({ database });
          const url = server.url;
          const signIn = (password: string) =>
            api(url, '/console/api/session', undefined, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: 'grace@example.com', password }),
            });
          const before = await signIn(oldPassword);
          assert.equal(before.status, 200);
          const oldCookie = before.headers.get('set-cookie')!.split(';')[0];
          assert.equal((await api(url, '/console/api/session', undefined, { headers: { cookie: oldCookie } })).status, 200);

          const out = ok(await cds('admin', 'reset-password', '--email', 'GRACE@example.com'));
          const password = /password=(\S+)/.exec(out)?.[1];
          assert.ok(password && password.length >= 12, out);
          // the session above, and the one the admin create step opened
          assert.match(out, /2 console sessions ended/);
          const stored = await database.db.kysely
            .selectFrom('admins')
            .select('password_hash')
            .where('email', '=', 'grace@example.com')
            .executeTakeFirstOrThrow();
          assert.match(stored.password_hash, /^scrypt\$/);
          assert.ok(!stored.password_hash.includes(password), 'only the hash is stored');

          const ended = await api(url, '/console/api/session', undefined, { headers: { cookie: oldCookie } });
          assert.equal(ended.status, 401, 'the session opened with the old password has ended');
          assert.equal((await signIn(oldPassword)).status, 401, 'the old password no longer works');
          const after = await signIn(password);
          assert.equal(after.status, 200, 'the new password signs in');
          const cookie = after.headers.get('set-cookie')!.split(';')[0];
          const log = await api(url, '/console/api/audit-log', undefined, { headers: { cookie } });
          const actions = log.body.data.map((e: { action: string; actor: { type: string } }) => `${e.action}:${e.actor.type}`);
          assert.ok(actions.includes('admin.password_reset:cli'), actions.join());

          const again = ok(await cds('admin', 'reset-password', '--email', 'grace@example.com', '--json'));
          const second = JSON.parse(again);
          assert.notEqual(second.password, password, 'each reset makes a new password');
          assert.equal(second.sessionsEnded, 1);
        } finally {
          await server?.close();
        }
        const unknown = await cds('admin', 'reset-password', '--email', 'nobody@example.com');
        assert.equal(unknown.code, 4, unknown.stderr);
        assert.match(unknown.stderr, /Administrator was not found/);
        assert.equal((await cds('admin', 'reset-password')).code, 2, 'no --email is a usage error');
      });

      it('an unknown command exits 2 with the usage', async () => {
        const res = await cds('frobnicate');
        assert.equal(res.code, 2);
        assert.match(res.stderr, /Unknown command "frobnicate"/);
        assert.match(res.stderr, /Usage: cds <command>/);
      });

      it('no command prints the usage and exits 2', async () => {
        const none = await cds();
        assert.equal(none.code, 2);
        assert.match(none.stdout, /Usage: cds/);
      });
    });
  }
});

describe('cds configuration errors', () => {
  it('an invalid DATABASE_URL exits 78 with a message', async () => {
    const res = await runCli(['org', 'list'], { DATABASE_URL: 'mysql://nope' });
    assert.equal(res.code, 78, res.stderr);
    assert.match(res.stderr, /Configuration error: DATABASE_URL/);
  });
});
