// PATCH /v1/controls/{controlId} over HTTP, on every database engine: the scope's state machine
// (a reason to go out, cleared coming back), assignees, the stamps, and the consequences — the
// control's status and its frameworks' progress — on the feed and the reads in the same commit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, type TestServer } from '../harness/server.ts';
import { assertRefused, newKey, show, startWriteServer } from '../harness/vulnerability-writes.ts';
import { eventCounter, failCompletionOfBoomKeys, readAll, storedEvents } from '../harness/events.ts';
import { patchControl, pushResult, smallProgram } from '../harness/results-scope.ts';

for (const dialect of dialects) {
  describe(`PATCH /v1/controls/{controlId} (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startWriteServer(dialect);
    });
    after(() => server.close());

    const progress = async (token: string) => (await api(server.url, '/v1/frameworks', token)).body.data[0].complianceProgress;

    test('out of scope with a reason, then back: status, stamps, framework progress and events move together', async () => {
      const p = await smallProgram(server);
      const stamp = { name: 'Moves Org credential', email: `${p.client.clientId}@credentials.invalid` };
      const get = async () => (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data;
      const inScope = await get();
      assert.equal(inScope.status, 'non_compliant');
      const progressIn = await progress(p.token);
      assert.deepEqual(progressIn.controls, { compliant: 1, total: 2, percentage: 50 });

      const start = Date.now();
      const out = await patchControl(server, p.token, p.controlId, {
        controlScope: 'out_of_scope',
        outOfScopeReason: 'Not used: no on-premise hosts',
      });
      assert.equal(out.status, 200, show(out));
      assert.deepEqual(out.body.data, await get(), 'PATCH answers what GET returns');
      assert.equal(out.body.data.controlScope, 'out_of_scope');
      assert.equal(out.body.data.outOfScopeReason, 'Not used: no on-premise hosts');
      assert.equal(out.body.data.status, 'not_applicable');
      assert.equal(out.body.data.controlCompliancePercentage, 'not_applicable');
      assert.equal(out.body.data.lastModifiedBy.email, stamp.email);
      assert.ok(out.body.data.modifiedOn >= start && out.body.data.modifiedOn <= Date.now());
      const listed = await api(server.url, `/v1/controls?fields=markedOutOfScopeBy,outOfScopeReason&controlScope=out_of_scope`, p.token);
      assert.deepEqual(
        listed.body.data.map((c: any) => [c.controlId, c.markedOutOfScopeBy?.email]),
        [[p.controlId, stamp.email]],
      );
      const progressOut = await progress(p.token);
      assert.deepEqual(progressOut.controls, { compliant: 1, total: 1, percentage: 100 });

      const { events } = await readAll(server, p.token);
      assert.deepEqual(
        events.map((e: any) => [e.type, e.resourceId]),
        [
          ['control.updated', p.controlId],
          ['control.status_changed', p.controlId],
          ['framework.progress_changed', p.frameworkId],
        ],
      );
      assert.deepEqual(Object.keys(events[0].data.changes).sort(), [
        'controlScope',
        'lastModifiedBy',
        'markedOutOfScopeBy',
        'modifiedOn',
        'outOfScopeReason',
      ]);
      assert.deepEqual(events[0].data.changes.controlScope, { before: 'in_scope', after: 'out_of_scope' });
      assert.deepEqual(events[0].data.changes.outOfScopeReason, { after: 'Not used: no on-premise hosts' });
      assert.equal(events[0].data.changes.markedOutOfScopeBy.after.email, stamp.email);
      assert.deepEqual(events[1].data, {
        before: 'non_compliant',
        after: 'not_applicable',
        cause: { type: 'control.updated', resourceId: p.controlId },
      });
      assert.deepEqual(events[2].data, { before: progressIn, after: progressOut });

      // Back in scope: the reason and the stamp are cleared; everything moves back.
      const back = await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope' });
      assert.equal(back.status, 200, show(back));
      assert.equal(back.body.data.controlScope, 'in_scope');
      assert.equal(back.body.data.outOfScopeReason, undefined);
      assert.equal(back.body.data.status, 'non_compliant');
      assert.deepEqual(await progress(p.token), progressIn);
      const later = (await storedEvents(server.database, p.organizationId)).slice(3);
      assert.deepEqual(
        later.map((e) => [e.type, e.type === 'control.updated' ? Object.keys(e.data.changes).sort() : [e.data.before, e.data.after]]),
        [
          ['control.updated', ['controlScope', 'markedOutOfScopeBy', 'modifiedOn', 'outOfScopeReason']],
          ['control.status_changed', ['not_applicable', 'non_compliant']],
          ['framework.progress_changed', [progressOut, progressIn]],
        ],
      );
      const relisted = await api(server.url, `/v1/controls?fields=markedOutOfScopeBy&controlScope=out_of_scope`, p.token);
      assert.deepEqual(relisted.body.data, []);
    });

    test('an out-of-scope control stays not_applicable when its test passes; framework counts still follow the test', async () => {
      const p = await smallProgram(server);
      assert.equal(
        (await patchControl(server, p.token, p.controlId, { controlScope: 'out_of_scope', outOfScopeReason: 'Retired' })).status,
        200,
      );
      const seq = await eventCounter(server.database, p.organizationId);
      const res = await pushResult(server, p.token, p.testId, { status: 'passing' });
      assert.equal(res.status, 200, show(res));
      const events = (await storedEvents(server.database, p.organizationId)).filter((e) => e.seq > seq);
      assert.deepEqual(
        events.map((e) => e.type),
        ['test.status_changed', 'framework.progress_changed'],
      );
      assert.equal((await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data.status, 'not_applicable');
      // Back in scope, the control is now compliant.
      const back = await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope' });
      assert.equal(back.body.data.status, 'compliant');
    });

    test('state machine: what each move needs, refused naming the field, with nothing written', async () => {
      const p = await smallProgram(server);
      const cases: Array<[unknown, string, RegExp?]> = [
        [{ controlScope: 'out_of_scope' }, 'outOfScopeReason', /required to move the control from in_scope to out_of_scope/],
        [{ outOfScopeReason: 'why' }, 'outOfScopeReason', /only a control that is out of scope has a reason/],
        [{ controlScope: 'in_scope', outOfScopeReason: 'why' }, 'outOfScopeReason'],
        [{ controlScope: 'out_of_scope', outOfScopeReason: '   ' }, 'outOfScopeReason'],
        [{ controlScope: 'out_of_scope', outOfScopeReason: 'x'.repeat(2001) }, 'outOfScopeReason'],
        [{ controlScope: 'sideways' }, 'controlScope'],
        [{}, 'body'],
        [{ assigneeEmails: ['not-an-email'] }, 'assigneeEmails[0]'],
        [{ assigneeEmails: ['nobody@example.com'] }, 'assigneeEmails[0]'],
        [{ assigneeEmails: Array.from({ length: 21 }, (_, i) => `p${i}@example.com`) }, 'assigneeEmails'],
        [{ assigneeEmails: [`${p.client.clientId}@credentials.invalid`] }, 'assigneeEmails[0]'],
        [{ controlScope: 'in_scope', extra: true }, 'extra'],
      ];
      // The credential's stamp row exists once it has written: make one so the last case is meaningful.
      await pushResult(server, p.token, p.testId, { status: 'fix_required' });
      for (const [body, field, message] of cases) {
        const res = await patchControl(server, p.token, p.controlId, body as any);
        assertRefused(res, field, JSON.stringify(body).slice(0, 80));
        if (message) assert.match(res.body.error.details.find((d: any) => d.field === field).message, message);
      }
      const out = await patchControl(server, p.token, p.controlId, { controlScope: 'out_of_scope', outOfScopeReason: 'First reason' });
      assert.equal(out.status, 200, show(out));
      // From out_of_scope: coming back with a reason is refused; a new reason alone replaces the old one.
      assertRefused(
        await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope', outOfScopeReason: 'x' }),
        'outOfScopeReason',
      );
      const reworded = await patchControl(server, p.token, p.controlId, { outOfScopeReason: 'Second reason' });
      assert.equal(reworded.status, 200, show(reworded));
      assert.equal(reworded.body.data.outOfScopeReason, 'Second reason');
      assert.equal(reworded.body.data.controlScope, 'out_of_scope');
      const events = (await storedEvents(server.database, p.organizationId)).filter((e) => e.resourceType === 'control');
      assert.deepEqual(
        events.map((e) => e.type),
        ['control.updated', 'control.status_changed', 'control.updated'],
      );
      assert.deepEqual(events[2].data.changes.outOfScopeReason, { before: 'First reason', after: 'Second reason' });
    });

    test('assignees are replaced in order (the first is primary); [] removes them; no status event', async () => {
      const p = await smallProgram(server);
      await p.base.person('Ada', 'ada@example.com');
      await p.base.person('Bob', 'Bob@Example.com');
      const seq = await eventCounter(server.database, p.organizationId);
      const res = await patchControl(server, p.token, p.controlId, { assigneeEmails: ['BOB@example.com', 'ada@example.com'] });
      assert.equal(res.status, 200, show(res));
      assert.deepEqual(res.body.data.assignees, [
        { name: 'Bob', email: 'Bob@Example.com', isPrimary: true },
        { name: 'Ada', email: 'ada@example.com', isPrimary: false },
      ]);
      assert.deepEqual(res.body.data, (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data);
      const dup = await patchControl(server, p.token, p.controlId, { assigneeEmails: ['ada@example.com', 'ADA@example.com'] });
      assertRefused(dup, 'assigneeEmails[1]');
      const events = (await storedEvents(server.database, p.organizationId)).filter((e) => e.seq > seq);
      assert.deepEqual(
        events.map((e) => [e.type, Object.keys(e.data.changes).sort()]),
        [['control.updated', ['assignees', 'lastModifiedBy', 'modifiedOn']]],
      );
      const cleared = await patchControl(server, p.token, p.controlId, { assigneeEmails: [] });
      assert.deepEqual(cleared.body.data.assignees, []);
      // the list filter by assignee sees the change at once
      const byAda = await api(server.url, '/v1/controls?assigneeEmails=ada@example.com', p.token);
      assert.deepEqual(byAda.body.data, []);
    });

    test('a PATCH that changes nothing writes nothing and records no event', async () => {
      const p = await smallProgram(server);
      await p.base.person('Ada', 'ada@example.com');
      assert.equal((await patchControl(server, p.token, p.controlId, { assigneeEmails: ['ada@example.com'] })).status, 200);
      const before = (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data;
      const seq = await eventCounter(server.database, p.organizationId);
      for (const body of [
        { controlScope: 'in_scope' },
        { assigneeEmails: ['ADA@example.com'] },
        { controlScope: 'in_scope', assigneeEmails: ['ada@example.com'] },
      ]) {
        const res = await patchControl(server, p.token, p.controlId, body);
        assert.equal(res.status, 200, show(res));
        assert.deepEqual(res.body.data, before);
      }
      assert.equal(await eventCounter(server.database, p.organizationId), seq);
    });

    test('unknown controls and other organizations’ controls are 404; the key is required', async () => {
      const p = await smallProgram(server);
      const other = await smallProgram(server, { name: 'Other Org' });
      const unknown = await patchControl(server, p.token, '00000000-0000-4000-8000-000000000000', { controlScope: 'in_scope' });
      assert.equal(unknown.status, 404, show(unknown));
      assert.equal(unknown.body.error.code, 'not_found');
      const foreign = await patchControl(server, p.token, other.controlId, { controlScope: 'out_of_scope', outOfScopeReason: 'x' });
      assert.equal(foreign.status, 404, show(foreign));
      assert.equal((await api(server.url, `/v1/controls/${other.controlId}`, other.token)).body.data.controlScope, 'in_scope');
      const noKey = await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope' }, null);
      assert.equal(noKey.status, 400);
      assert.equal(noKey.body.error.code, 'idempotency_key_required');
    });

    test('idempotent replay answers the stored result and records nothing more; another body under the key is 409', async () => {
      const p = await smallProgram(server);
      const key = newKey();
      const body = { controlScope: 'out_of_scope', outOfScopeReason: 'Replay' };
      const first = await patchControl(server, p.token, p.controlId, body, key);
      assert.equal(first.status, 200, show(first));
      const seq = await eventCounter(server.database, p.organizationId);
      // The control moves on meanwhile; the replay still answers the stored result.
      assert.equal((await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope' })).status, 200);
      const seq2 = await eventCounter(server.database, p.organizationId);
      const replay = await patchControl(server, p.token, p.controlId, body, key);
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);
      assert.equal(await eventCounter(server.database, p.organizationId), seq2);
      assert.ok(seq2 > seq);
      const reused = await patchControl(server, p.token, p.controlId, { controlScope: 'in_scope' }, key);
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error.code, 'idempotency_key_reused');
    });

    test('a PATCH that fails after recording its events leaves the control, the framework and the feed as they were', async () => {
      const p = await smallProgram(server);
      const before = (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data;
      const progressBefore = await progress(p.token);
      const restore = await failCompletionOfBoomKeys(server.database);
      try {
        const res = await patchControl(
          server,
          p.token,
          p.controlId,
          { controlScope: 'out_of_scope', outOfScopeReason: 'x' },
          `boom-${newKey()}`,
        );
        assert.equal(res.status, 500, show(res));
      } finally {
        await restore();
      }
      assert.deepEqual((await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data, before);
      assert.deepEqual(await progress(p.token), progressBefore);
      assert.equal(await eventCounter(server.database, p.organizationId), 0);
    });
  });
}
