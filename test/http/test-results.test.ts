// POST /v1/tests/{testId}/results over HTTP, on every database engine: a pushed run moves the test
// (status, lastScannedOn, resources, testHistory) and, in the same commit, the controls and
// frameworks it counts for, on the feed and on the reads; the test's state machine; replays.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, type TestServer } from '../harness/server.ts';
import { assertRefused, newKey, show, startWriteServer } from '../harness/vulnerability-writes.ts';
import { eventCounter, failCompletionOfBoomKeys, readAll, storedEvents } from '../harness/events.ts';
import { pushResult, smallProgram } from '../harness/results-scope.ts';

const resource = (resourceId: string, status: string, extra: Record<string, unknown> = {}) => ({
  resourceId,
  name: `Resource ${resourceId}`,
  status,
  ...extra,
});

for (const dialect of dialects) {
  describe(`POST /v1/tests/{testId}/results (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startWriteServer(dialect);
    });
    after(() => server.close());

    test('a passing run flips the control: the feed and the reads show it as soon as the push answers', async () => {
      const p = await smallProgram(server);
      const control = async () => (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data;
      assert.equal((await control()).status, 'non_compliant');
      const frameworkBefore = (await api(server.url, '/v1/frameworks', p.token)).body.data[0].complianceProgress;
      const start = Date.now();
      const res = await pushResult(server, p.token, p.testId, {
        status: 'passing',
        resources: [resource('i-1', 'passing', { region: 'eu-west-1', tags: ['prod'] })],
      });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'passing');
      assert.ok(res.body.data.lastScannedOn >= start && res.body.data.lastScannedOn <= Date.now());
      // The answer is GET's (default fields: fix_required resources only, so none here).
      const got = await api(server.url, `/v1/tests/${p.testId}`, p.token);
      assert.deepEqual(res.body.data, got.body.data);
      assert.deepEqual(res.body.data.resources, []);
      const passing = await api(server.url, `/v1/tests/${p.testId}?resourceStatus=passing&fields=testHistory`, p.token);
      assert.deepEqual(
        passing.body.data.resources.map((r: any) => [r.resourceId, r.region, r.tags, r.firstDetected, r.lastScannedAt]),
        [['i-1', 'eu-west-1', ['prod'], res.body.data.lastScannedOn, res.body.data.lastScannedOn]],
      );
      assert.deepEqual(passing.body.data.testHistory, [{ scannedOn: res.body.data.lastScannedOn, status: 'passing' }]);

      // The control and the framework moved, on the reads and on the feed, in one commit.
      assert.equal((await control()).status, 'compliant');
      const frameworkAfter = (await api(server.url, '/v1/frameworks', p.token)).body.data[0].complianceProgress;
      const { events } = await readAll(server, p.token);
      assert.deepEqual(
        events.map((e: any) => [e.type, e.resourceId]),
        [
          ['test.status_changed', p.testId],
          ['test.updated', p.testId],
          ['control.status_changed', p.controlId],
          ['framework.progress_changed', p.frameworkId],
        ],
      );
      assert.deepEqual(events[0].data, { before: 'fix_required', after: 'passing' });
      assert.deepEqual(Object.keys(events[1].data.changes).sort(), ['lastScannedOn', 'modifiedOn', 'resources']);
      assert.deepEqual(events[2].data, {
        before: 'non_compliant',
        after: 'compliant',
        cause: { type: 'test.status_changed', resourceId: p.testId },
      });
      assert.deepEqual(events[3].data, { before: frameworkBefore, after: frameworkAfter });
      assert.equal(frameworkAfter.tests.passing, frameworkBefore.tests.passing + 1);
      // Every event carries the same instant.
      assert.equal(new Set(events.map((e: any) => e.occurredAt)).size, 1);
    });

    test('a passing run of a test whose integration is failing reads affected and leaves the control non-compliant', async () => {
      const p = await smallProgram(server, { integrationFailing: true });
      const res = await pushResult(server, p.token, p.testId, { status: 'passing' });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'affected');
      assert.equal((await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data.status, 'non_compliant');
      const events = await storedEvents(server.database, p.organizationId);
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [['test.status_changed', { before: 'fix_required', after: 'affected' }]],
      );
      const history = await api(server.url, `/v1/tests/${p.testId}?fields=testHistory`, p.token);
      assert.deepEqual(
        history.body.data.testHistory.map((h: any) => h.status),
        ['affected'],
      );
    });

    test('resources are replaced by the pushed set; firstDetected and assignees stay while a resource keeps its status', async () => {
      const p = await smallProgram(server);
      const ada = await p.base.person('Ada', 'ada@example.com');
      const t1 = Date.now() - 3 * 3600_000;
      const first = await pushResult(server, p.token, p.testId, {
        status: 'fix_required',
        scannedAt: t1,
        resources: [resource('a', 'fix_required'), resource('b', 'fix_required'), resource('c', 'passing')],
      });
      assert.equal(first.status, 200, show(first));
      assert.deepEqual(
        first.body.data.resources.map((r: any) => [r.resourceId, r.firstDetected]),
        [
          ['a', t1],
          ['b', t1],
        ],
      );
      // A person assigns resource a (as the program's own data does).
      const rowA = await server.database.db.kysely
        .selectFrom('test_resources')
        .select('id')
        .where('test_id', '=', p.testId)
        .where('resource_id', '=', 'a')
        .executeTakeFirstOrThrow();
      await server.database.db.kysely
        .insertInto('subject_people')
        .values({
          organization_id: p.organizationId,
          subject_type: 'test_resource',
          subject_id: rowA.id,
          person_id: ada,
          role: 'assignee',
          is_primary: true,
          position: 0,
        })
        .execute();

      const t2 = t1 + 3600_000;
      const second = await pushResult(server, p.token, p.testId, {
        status: 'fix_required',
        scannedAt: t2,
        // a still failing; b fixed; c now failing; d new; nothing else
        resources: [
          resource('a', 'fix_required', { name: 'Renamed a' }),
          resource('b', 'passing'),
          resource('c', 'fix_required'),
          resource('d', 'fix_required'),
        ],
      });
      assert.equal(second.status, 200, show(second));
      const all = await api(server.url, `/v1/tests/${p.testId}?resourceStatus=fix_required,passing,ignored`, p.token);
      assert.deepEqual(
        all.body.data.resources.map((r: any) => [r.resourceId, r.name, r.status, r.firstDetected, r.lastScannedAt, r.assignees]),
        [
          ['b', 'Resource b', 'passing', t2, t2, []],
          ['a', 'Renamed a', 'fix_required', t1, t2, [{ name: 'Ada', email: 'ada@example.com' }]],
          ['c', 'Resource c', 'fix_required', t2, t2, []],
          ['d', 'Resource d', 'fix_required', t2, t2, []],
        ].sort((x, y) => ((x[1] as string) < (y[1] as string) ? -1 : 1)),
      );
      // A run without resources clears them, and the links of the dropped rows go with them.
      const third = await pushResult(server, p.token, p.testId, { status: 'passing', scannedAt: t2 + 1000 });
      assert.equal(third.status, 200, show(third));
      const none = await api(server.url, `/v1/tests/${p.testId}?resourceStatus=fix_required,passing,ignored`, p.token);
      assert.deepEqual(none.body.data.resources, []);
      const links = await server.database.db.kysely
        .selectFrom('subject_people')
        .select('subject_id')
        .where('organization_id', '=', p.organizationId)
        .where('subject_type', '=', 'test_resource')
        .execute();
      assert.deepEqual(links, []);
    });

    test('a run that finds the same things records no event; an older run only joins testHistory', async () => {
      const p = await smallProgram(server);
      const t1 = Date.now() - 3600_000;
      const body = (scannedAt: number) => ({ status: 'fix_required', scannedAt, resources: [resource('a', 'fix_required')] });
      assert.equal((await pushResult(server, p.token, p.testId, body(t1))).status, 200);
      const counter = await eventCounter(server.database, p.organizationId);
      const firstGet = (await api(server.url, `/v1/tests/${p.testId}`, p.token)).body.data;

      const again = await pushResult(server, p.token, p.testId, body(t1 + 60_000));
      assert.equal(again.status, 200, show(again));
      assert.equal(await eventCounter(server.database, p.organizationId), counter, 'no event for a run that changed nothing but its time');
      assert.equal(again.body.data.lastScannedOn, t1 + 60_000);
      assert.equal(again.body.data.modifiedOn, firstGet.modifiedOn, 'modifiedOn stays');
      assert.equal(again.body.data.resources[0].firstDetected, t1);

      // A late run (older than lastScannedOn) does not undo the newer one.
      const late = await pushResult(server, p.token, p.testId, { status: 'passing', scannedAt: t1 - 60_000 });
      assert.equal(late.status, 200, show(late));
      assert.equal(late.body.data.status, 'fix_required');
      assert.equal(late.body.data.lastScannedOn, t1 + 60_000);
      assert.equal(late.body.data.resources.length, 1);
      assert.equal(await eventCounter(server.database, p.organizationId), counter);
      const history = (await api(server.url, `/v1/tests/${p.testId}?fields=testHistory`, p.token)).body.data.testHistory;
      assert.deepEqual(history, [
        { scannedOn: t1 - 60_000, status: 'passing' },
        { scannedOn: t1, status: 'fix_required' },
        { scannedOn: t1 + 60_000, status: 'fix_required' },
      ]);
    });

    test('state machine: an ignored test takes no result (400 naming status, saying what is allowed); nothing changes', async () => {
      const p = await smallProgram(server, { result: 'ignored' });
      const res = await pushResult(server, p.token, p.testId, { status: 'passing' });
      assertRefused(res, 'status');
      assert.match(res.body.error.details[0].message, /ignored/);
      assert.match(res.body.error.details[0].message, /no pushed result moves a test from ignored/);
      const got = (await api(server.url, `/v1/tests/${p.testId}?fields=testHistory`, p.token)).body.data;
      assert.equal(got.status, 'ignored');
      assert.deepEqual(got.testHistory, []);
      assert.equal(got.lastScannedOn, undefined);
      assert.equal(await eventCounter(server.database, p.organizationId), 0);
      // every other status moves both ways
      const q = await smallProgram(server);
      for (const [status, expected] of [
        ['passing', 'passing'],
        ['passing', 'passing'],
        ['fix_required', 'fix_required'],
        ['fix_required', 'fix_required'],
        ['passing', 'passing'],
      ]) {
        const r = await pushResult(server, q.token, q.testId, { status });
        assert.equal(r.status, 200, show(r));
        assert.equal(r.body.data.status, expected);
      }
      assert.deepEqual(
        (await storedEvents(server.database, q.organizationId))
          .filter((e) => e.type === 'test.status_changed')
          .map((e) => [e.data.before, e.data.after]),
        [
          ['fix_required', 'passing'],
          ['passing', 'fix_required'],
          ['fix_required', 'passing'],
        ],
      );
    });

    test('bad input is refused naming the field, with nothing recorded', async () => {
      const p = await smallProgram(server);
      const long = 'x'.repeat(256);
      const cases: Array<[unknown, string]> = [
        [{ status: 'affected' }, 'status'],
        [{ status: 'ignored' }, 'status'],
        [{}, 'status'],
        [{ status: 'passing', scannedAt: Date.now() + 3600_000 }, 'scannedAt'],
        [{ status: 'passing', scannedAt: -1 }, 'scannedAt'],
        [{ status: 'passing', resources: Array.from({ length: 1001 }, (_, i) => resource(`r${i}`, 'passing')) }, 'resources'],
        [{ status: 'passing', resources: [resource(long, 'passing')] }, 'resources[0].resourceId'],
        [{ status: 'passing', resources: [{ ...resource('a', 'passing'), name: long }] }, 'resources[0].name'],
        [{ status: 'passing', resources: [resource('a', 'passing', { region: long })] }, 'resources[0].region'],
        [{ status: 'passing', resources: [resource('a', 'passing', { description: 'x'.repeat(2001) })] }, 'resources[0].description'],
        [{ status: 'passing', resources: [resource('a', 'passing', { tags: [long] })] }, 'resources[0].tags[0]'],
        [
          { status: 'passing', resources: [resource('a', 'passing', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })] },
          'resources[0].tags',
        ],
        [{ status: 'passing', resources: [resource('a', 'passing', { link: 'javascript:alert(1)' })] }, 'resources[0].link'],
        [{ status: 'passing', resources: [resource('a', 'passing', { link: 'https://user:pw@example.com/' })] }, 'resources[0].link'],
        [{ status: 'passing', resources: [resource('a', 'affected')] }, 'resources[0].status'],
        [{ status: 'passing', resources: [resource('a', 'passing'), resource('a', 'fix_required')] }, 'resources[1].resourceId'],
        [{ status: 'passing', extra: 1 }, 'extra'],
      ];
      for (const [body, field] of cases) {
        const res = await pushResult(server, p.token, p.testId, body as any);
        assertRefused(res, field, JSON.stringify(body).slice(0, 120));
      }
      // 1,000 resources with every field are accepted (past the 4,096 entries other bodies may hold)
      const full = (i: number) =>
        resource(`r${String(i).padStart(4, '0')}`, 'fix_required', {
          region: 'eu-west-1',
          service: 's3',
          accountID: '123456789012',
          environment: 'prod',
          link: `https://console.example.com/r/${i}`,
          description: 'Public bucket',
          tags: ['a', 'b', 'c', 'd', 'e'],
        });
      const max = await pushResult(server, p.token, p.testId, {
        status: 'fix_required',
        resources: Array.from({ length: 1000 }, (_, i) => full(i)),
      });
      assert.equal(max.status, 200, show(max));
      assert.equal(max.body.data.resources.length, 1000);
      const events = await storedEvents(server.database, p.organizationId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['test.updated'],
        'only the accepted push recorded anything',
      );
      // The next run changes one resource of the 1,000: the event names that one, not all of them.
      const next = Array.from({ length: 1000 }, (_, i) => (i === 7 ? { ...full(i), status: 'passing' } : full(i)));
      assert.equal((await pushResult(server, p.token, p.testId, { status: 'fix_required', resources: next })).status, 200);
      const [updated] = (await storedEvents(server.database, p.organizationId)).slice(1);
      assert.equal(updated.type, 'test.updated');
      assert.deepEqual(
        [
          updated.data.changes.resources.before.map((r: any) => [r.resourceId, r.status]),
          updated.data.changes.resources.after.map((r: any) => [r.resourceId, r.status]),
        ],
        [[['r0007', 'fix_required']], [['r0007', 'passing']]],
      );
    });

    test('unknown tests and other organizations’ tests are 404; a read-only credential is 403', async () => {
      const p = await smallProgram(server);
      const other = await smallProgram(server, { name: 'Other Org' });
      const unknown = await pushResult(server, p.token, 'test_nope', { status: 'passing' });
      assert.equal(unknown.status, 404, show(unknown));
      assert.equal(unknown.body.error.code, 'not_found');
      const foreign = await pushResult(server, p.token, other.testId, { status: 'passing' });
      assert.equal(foreign.status, 404, show(foreign));
      assert.equal((await api(server.url, `/v1/tests/${other.testId}`, other.token)).body.data.status, 'fix_required');
      const noKey = await pushResult(server, p.token, p.testId, { status: 'passing' }, null);
      assert.equal(noKey.status, 400, show(noKey));
      assert.equal(noKey.body.error.code, 'idempotency_key_required');
    });

    test('idempotent replay: same key and body answers the stored result; another body under the key is 409', async () => {
      const p = await smallProgram(server);
      const key = newKey();
      const body = { status: 'passing', resources: [resource('a', 'passing')] };
      const first = await pushResult(server, p.token, p.testId, body, key);
      assert.equal(first.status, 200, show(first));
      const counter = await eventCounter(server.database, p.organizationId);
      const replay = await pushResult(server, p.token, p.testId, body, key);
      assert.equal(replay.status, 200, show(replay));
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);
      assert.equal(await eventCounter(server.database, p.organizationId), counter);
      const history = (await api(server.url, `/v1/tests/${p.testId}?fields=testHistory`, p.token)).body.data.testHistory;
      assert.equal(history.length, 1, 'the replay recorded no second run');
      const reused = await pushResult(server, p.token, p.testId, { status: 'fix_required' }, key);
      assert.equal(reused.status, 409, show(reused));
      assert.equal(reused.body.error.code, 'idempotency_key_reused');
    });

    test('a push that fails after recording its events leaves nothing: status, history, events, control', async () => {
      const p = await smallProgram(server);
      const restore = await failCompletionOfBoomKeys(server.database);
      try {
        const res = await pushResult(
          server,
          p.token,
          p.testId,
          { status: 'passing', resources: [resource('a', 'passing')] },
          `boom-${newKey()}`,
        );
        assert.equal(res.status, 500, show(res));
      } finally {
        await restore();
      }
      const got = (await api(server.url, `/v1/tests/${p.testId}?fields=testHistory&resourceStatus=passing`, p.token)).body.data;
      assert.equal(got.status, 'fix_required');
      assert.deepEqual(got.testHistory, []);
      assert.deepEqual(got.resources, []);
      assert.equal(await eventCounter(server.database, p.organizationId), 0);
      assert.equal((await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data.status, 'non_compliant');
    });
  });
}
