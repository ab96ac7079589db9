// Credential events (issue 15) from the administration command `cds`, run as a real child process
// on each database engine: `cds credential create` and `cds credential revoke` record
// credential.created and credential.revoked in the transaction of the change (read from the events
// table: credential events are for administrators' webhooks and are not in the feed). Also the
// console's admin API and the feed's refusal to show them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli, type CliResult } from '../harness/process.ts';
import { api, getToken, startServer } from '../harness/server.ts';
import { readAll, storedEvents } from '../harness/events.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, `exit ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  return res.stdout;
}

describe('cds credential events on each engine', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`cds credential events (${dialect})`, { concurrency: 1 }, () => {
      let database: TestDatabase;
      let env: Record<string, string>;
      const cds = (...args: string[]) => runCli(args, env);

      before(async () => {
        database = await createTestDatabase(dialect);
        env = { ...database.env, REGION: 'us' };
      });
      after(async () => {
        await database?.drop();
      });

      it('create and revoke each record one event with the credential and never its secret; a second revoke records none', async () => {
        const org = JSON.parse(ok(await cds('org', 'create', '--name', 'Events Org', '--json')));
        const created = JSON.parse(ok(await cds('credential', 'create', '--org', org.id, '--access', 'read_write', '--json')));
        let events = await storedEvents(database, org.id);
        assert.equal(events.length, 1);
        assert.equal(events[0].type, 'credential.created');
        assert.equal(events[0].resourceType, 'credential');
        assert.equal(events[0].resourceId, created.id);
        const credential = events[0].data.credential;
        assert.equal(credential.id, created.id);
        assert.equal(credential.clientId, created.clientId);
        assert.equal(credential.accessLevel, 'read_write');
        assert.equal(credential.status, 'active');
        assert.deepEqual(Object.keys(credential).sort(), [
          'accessLevel',
          'clientId',
          'createdAt',
          'id',
          'lastUsedAt',
          'name',
          'revokedAt',
          'status',
        ]);
        assert.ok(!JSON.stringify(events[0]).includes(created.clientSecret), 'the secret is never in an event');

        ok(await cds('credential', 'revoke', created.id));
        ok(await cds('credential', 'revoke', created.id));
        events = await storedEvents(database, org.id);
        assert.deepEqual(
          events.map((e) => [e.seq, e.type]),
          [
            [1, 'credential.created'],
            [2, 'credential.revoked'],
          ],
        );
        assert.equal(events[1].data.credential.status, 'revoked');
        assert.equal(typeof events[1].data.credential.revokedAt, 'number');

        // The feed never gives credential events, and refuses to be asked for them.
        const server = await startServer({ database });
        try {
          const reader = JSON.parse(ok(await cds('credential', 'create', '--org', org.id, '--access', 'read_only', '--json')));
          const token = await getToken(server.url, reader);
          assert.deepEqual((await readAll(server, token)).events, []);
          const asked = await api(server.url, '/v1/events?types=credential.created', token);
          assert.equal(asked.status, 400, JSON.stringify(asked.body));
          assert.equal(asked.body.error.details[0].field, 'types');
          assert.equal((await storedEvents(database, org.id)).length, 3, 'the reader credential was recorded too');
        } finally {
          await server.close();
        }
      });

      it('a refused create (unknown access level, unknown organization) records nothing', async () => {
        const org = JSON.parse(ok(await cds('org', 'create', '--name', 'Refused Org', '--json')));
        assert.notEqual((await cds('credential', 'create', '--org', org.id, '--access', 'bogus')).code, 0);
        assert.deepEqual(await storedEvents(database, org.id), []);
      });
    });
  }
});
