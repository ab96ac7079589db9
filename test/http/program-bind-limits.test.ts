// A program document larger than one statement's bind parameters (SQLite binds at most 32,766,
// PostgreSQL 65,535): tests whose flagged resources together pass both. The plan and the apply
// read the created tests' resources and those resources' links for the `test.created` events; a
// read naming every resource ID in one `in (…)` answered 500 ("too many SQL variables" on SQLite,
// "bind message has 4467 parameter formats but 0 parameters" on PostgreSQL). An update replacing
// every resource and a prune deleting the tests go through the same lists. Over HTTP, on every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { storedEvents } from '../harness/events.ts';
import { BIND_PARAMETER_LIMITS } from '../../src/storage/db/bulk-insert.ts';

/** The most flagged resources a test may hold. */
const PER_TEST = 10_000;
/** Enough tests that their resources pass the larger of the engines' limits. */
const TESTS = Math.ceil((Math.max(...Object.values(BIND_PARAMETER_LIMITS)) + 1) / PER_TEST);
const LAST = `r-${TESTS - 1}-${PER_TEST - 1}`;

/** Every resource flagged; the very last one has an assignee and an entity, so its links are read in the last chunk. */
const document = (status = 'fix_required') =>
  JSON.stringify({
    version: 1,
    entities: [{ key: 'payments', name: 'Payments' }],
    people: [{ key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' }],
    tests: Array.from({ length: TESTS }, (_, t) => ({
      key: `bulk-${t}`,
      name: `Bulk ${t}`,
      result: 'fix_required',
      resources: Array.from({ length: PER_TEST }, (_, i) => {
        const resource: Record<string, unknown> = { resourceId: `r-${t}-${i}`, name: `bucket ${t}-${i}`, status };
        if (t === TESTS - 1 && i === PER_TEST - 1) Object.assign(resource, { assignees: ['ada'], entities: ['payments'] });
        return resource;
      }),
    })),
  });

for (const dialect of dialects) {
  describe(`program documents past the bind parameter limits (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let token: string;
    let organizationId: string;
    const put = (query: string, body: string, headers: Record<string, string> = {}) =>
      api(server.url, `/v1/program${query}`, token, { method: 'PUT', body, headers: { 'content-type': 'application/json', ...headers } });

    before(async () => {
      server = await startServer({ dialect });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
    });
    after(() => server.close());

    test(`mode=plan of ${TESTS} tests of ${PER_TEST} flagged resources answers the plan, not a 500`, async () => {
      const res = await put('?mode=plan', document());
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
      assert.deepEqual(res.body.data.counts.tests, { created: TESTS, updated: 0, deleted: 0, unchanged: 0 });
      assert.equal((await api(server.url, '/v1/tests', token)).body.data.length, 0);
    });

    test('the apply writes every resource and records each test.created with all of them and their links', async () => {
      const res = await put('', document(), { 'idempotency-key': 'bind-limits-apply' });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
      assert.deepEqual(res.body.data.counts.tests, { created: TESTS, updated: 0, deleted: 0, unchanged: 0 });
      const created = (await storedEvents(server.database, organizationId)).filter((e) => e.type === 'test.created');
      assert.equal(created.length, TESTS);
      const shapes = created.map((e) => (e.data as { test: { resources: Array<Record<string, any>> } }).test);
      for (const shape of shapes) assert.equal(shape.resources.length, PER_TEST);
      const last = shapes.flatMap((s) => s.resources).find((r) => r.resourceId === LAST)!;
      assert.deepEqual(last.assignees, [{ name: 'Ada Lovelace', email: 'ada@example.com' }]);
      assert.deepEqual(
        last.entities.map((e: { entityName: string }) => e.entityName),
        ['Payments'],
      );
      const lastTest = res.body.data.changes.find((c: { key: string }) => c.key === `bulk-${TESTS - 1}`).id;
      const got = await api(server.url, `/v1/tests/${lastTest}`, token);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.resources.length, PER_TEST);
    });

    test('an apply that changes every resource replaces them and records each test.updated', async () => {
      const res = await put('', document('passing'), { 'idempotency-key': 'bind-limits-update' });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
      assert.deepEqual(res.body.data.counts.tests, { created: 0, updated: TESTS, deleted: 0, unchanged: 0 });
      const updated = (await storedEvents(server.database, organizationId)).filter((e) => e.type === 'test.updated');
      assert.equal(updated.length, TESTS);
      const lastTest = res.body.data.changes.find((c: { key: string }) => c.key === `bulk-${TESTS - 1}`).id;
      const got = await api(server.url, `/v1/tests/${lastTest}?resourceStatus=passing`, token);
      assert.equal(got.body.data.resources.length, PER_TEST);
      const last = got.body.data.resources.find((r: { resourceId: string }) => r.resourceId === LAST);
      assert.deepEqual(last.assignees, [{ name: 'Ada Lovelace', email: 'ada@example.com' }]);
    });

    test('prune deletes them all with their resources', async () => {
      const res = await put('?prune=true', JSON.stringify({ version: 1, tests: [] }), { 'idempotency-key': 'bind-limits-prune' });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
      assert.deepEqual(res.body.data.counts.tests, { created: 0, updated: 0, deleted: TESTS, unchanged: 0 });
      assert.equal((await api(server.url, '/v1/tests', token)).body.data.length, 0);
    });
  });
}
