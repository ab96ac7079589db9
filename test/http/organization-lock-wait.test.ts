// A write that waits for another write of its organization waits a bounded time (PostgreSQL: the
// organization's row lock, src/storage/db/repositories/organizations/organizations.ts): past
// ORGANIZATION_LOCK_WAIT_MS it is refused 429 with Retry-After, as a request on a locked object is
// at Stripe. Before, it waited until the statement time-out (30 s) and answered 500: ten imports
// of one organization at once did (issue 36, the noisy-neighbour bench's scenario (e)). SQLite
// takes no organization lock (one writer, waited for in turn), so this is PostgreSQL's alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, startServer, type TestServer } from '../harness/server.ts';
import { newKey, newOrg } from '../harness/vulnerability-writes.ts';
import { resultAt, sarif } from '../harness/vulnerability-imports.ts';
import { lockOrganization, ORGANIZATION_LOCK_WAIT_MS } from '../../src/storage/db/repositories/organizations/organizations.ts';

describe('a write waiting for its organization’s lock (postgres)', {
  skip: !dialects.includes('postgres') && 'TEST_DATABASE_URL is not set',
}, () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ dialect: 'postgres' });
  });
  after(() => server?.close());

  it('an import while another write holds the organization past the bound answers 429 with Retry-After, and is written once retried', async () => {
    const org = await newOrg(server, 'Busy');
    const organizationId = org.client.organizationId;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = server.system.db.kysely.transaction().execute(async (trx) => {
      await lockOrganization(trx, organizationId);
      locked();
      await released;
    });
    await isLocked;
    const file = sarif([resultAt('src/app.js', 1)]);
    const key = newKey();
    const send = () =>
      api(server.url, '/v1/vulnerabilities/imports?format=sarif', org.token, {
        method: 'POST',
        body: file,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
    const start = performance.now();
    let refused;
    try {
      refused = await send();
    } finally {
      release();
      await holder;
    }
    const waited = performance.now() - start;
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'rate_limit_exceeded');
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After says when to retry');
    assert.ok(waited >= ORGANIZATION_LOCK_WAIT_MS - 100 && waited < ORGANIZATION_LOCK_WAIT_MS + 5_000, `waited ${Math.round(waited)} ms`);
    // Nothing was written or kept under the key: the retry imports the file.
    const retried = await send();
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.data.created, 1);
  });
});
