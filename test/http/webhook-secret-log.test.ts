// A webhook signing secret is shown once, in the answer, and never written to the log: the real
// server process at its most verbose level registers an endpoint and rotates its secret, and
// neither secret appears in what it wrote. Logging does not depend on the engine: SQLite.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createAdminFor, createOrgWithCredential } from '../harness/server.ts';
import { CONSOLE_PASSWORD, consoleCall, consoleSignIn } from '../harness/console-session.ts';

describe('webhook secrets and the log (server process, LOG_LEVEL=trace)', () => {
  let database: TestDatabase;
  let store: TestStore;
  let server: ServerProcess;

  before(async () => {
    database = await createTestDatabase('sqlite');
    store = createTestStore('memory');
    server = await startServerProcess({ database, store, env: { LOG_LEVEL: 'trace', WEBHOOK_DELIVERY: 'off' } });
    const ctx = { db: database.db, region: 'us' as const, now: Date.now };
    const { organizationId } = await createOrgWithCredential(ctx, {});
    const actor = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };
    await createAdminFor({ ctx, input: { organizationId, email: 'log@example.com', password: CONSOLE_PASSWORD }, actor });
  });
  after(async () => {
    await server?.stop();
    await store?.store.close();
    await database?.drop();
  });

  test('neither the first secret nor the rotated one is logged', async () => {
    const s = await consoleSignIn(server.url, 'log@example.com');
    const created = await consoleCall(server.url, s, '/console/api/webhook-endpoints', {
      method: 'POST',
      // a literal public address: no DNS, and nothing is sent (no worker)
      body: { url: 'https://93.184.216.34/log-test', eventTypes: ['*'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const rotated = await consoleCall(server.url, s, `/console/api/webhook-endpoints/${created.body.data.endpointId}/rotate-secret`, {
      method: 'POST',
    });
    assert.equal(rotated.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the child flush its log
    const log = server.stdout() + server.stderr();
    assert.ok(log.includes(created.body.data.endpointId) || log.includes('webhook-endpoints'), 'the requests were logged');
    for (const secret of [created.body.data.secret, rotated.body.data.secret]) {
      // the whole secret, and its random part alone (in case of another encoding of the prefix)
      assert.ok(!log.includes(secret.slice('whsec_'.length)), 'a secret in the log');
    }
  });
});
