// PATCH /v1/evidence/{evidenceId} over HTTP (issue 26), on every database engine: relevance (not
// relevant needs a reason; relevant clears it) with its computed control events, external links
// added as attachments without a file (submitted like an upload), their bounds and URL rules, and
// that a write whose transaction fails leaves nothing: no change, no event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, type TestServer } from '../harness/server.ts';
import {
  assertRefused,
  credentialStamp,
  eventsSince,
  feedLength,
  movesOrg,
  show,
  startMovesServer,
  write,
} from '../harness/program-moves.ts';
import { failCompletionOfBoomKeys } from '../harness/events.ts';

const DAY = 86_400_000;

for (const dialect of dialects) {
  describe(`PATCH /v1/evidence/{evidenceId} (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startMovesServer(dialect);
    });
    after(() => server.close());

    test('relevance: false needs a reason and flips the control; a reason alone replaces it; true clears it', async () => {
      const o = await movesOrg(server);
      const done = await o.artifacts.evidence({
        name: 'Done',
        status: 'uploaded',
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const open = await o.artifacts.evidence({
        name: 'Open',
        status: 'not_uploaded',
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const control = async () => (await api(server.url, `/v1/controls/${o.controlId}`, o.token)).body.data.status;
      assert.equal(await control(), 'non_compliant');
      const path = `/v1/evidence/${open}`;

      assertRefused(await write(server, o.token, 'PATCH', path, { isRelevant: false }), 'notRelevantReason', /required/);
      assertRefused(await write(server, o.token, 'PATCH', path, { notRelevantReason: 'No' }), 'notRelevantReason', /isRelevant false/);
      assertRefused(await write(server, o.token, 'PATCH', path, { isRelevant: true, notRelevantReason: 'No' }), 'notRelevantReason');
      assertRefused(
        await write(server, o.token, 'PATCH', path, { isRelevant: false, notRelevantReason: 'x'.repeat(2001) }),
        'notRelevantReason',
      );
      assertRefused(await write(server, o.token, 'PATCH', path, {}), 'body');
      assertRefused(await write(server, o.token, 'PATCH', path, { status: 'uploaded' }), 'status', undefined, 'status is not writable');

      const seen = await feedLength(server, o.token);
      const res = await write(server, o.token, 'PATCH', path, { isRelevant: false, notRelevantReason: 'We have no office.' });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.isRelevant, false);
      assert.equal(res.body.data.notRelevantReason, 'We have no office.');
      assert.equal(res.body.data.status, 'not_uploaded');
      assert.deepEqual(res.body.data.lastModifiedBy, await credentialStamp(server, o.client.credentialId));
      assert.deepEqual(res.body.data, (await api(server.url, path, o.token)).body.data);
      const events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => e.type),
        ['evidence.updated', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.deepEqual(events[0].data.changes.isRelevant, { before: true, after: false });
      assert.deepEqual(events[0].data.changes.notRelevantReason, { after: 'We have no office.' });
      assert.deepEqual(events[1].data, {
        before: 'non_compliant',
        after: 'compliant',
        cause: { type: 'evidence.updated', resourceId: open },
      });
      assert.equal(await control(), 'compliant', 'only the uploaded record counts now');

      let next = await write(server, o.token, 'PATCH', path, { notRelevantReason: 'We work remotely.' });
      assert.equal(next.body.data.notRelevantReason, 'We work remotely.', show(next));
      next = await write(server, o.token, 'PATCH', path, { isRelevant: false });
      assert.equal(next.status, 200, 'already not relevant: the stored reason stands');
      assert.equal(next.body.data.notRelevantReason, 'We work remotely.');
      next = await write(server, o.token, 'PATCH', path, { isRelevant: true });
      assert.equal(next.body.data.isRelevant, true);
      assert.ok(!('notRelevantReason' in next.body.data), 'cleared');
      assert.equal(await control(), 'non_compliant');
      assert.ok(done);
    });

    test('links dated only in a period that has ended leave a recurring record stale at once, like a backfilled upload', async () => {
      const o = await movesOrg(server);
      const evidenceId = await o.artifacts.evidence({ name: 'Access review', status: 'not_uploaded', recurrence: 'monthly' });
      const lastYear = Date.now() - 400 * 24 * 3600 * 1000;
      const res = await write(server, o.token, 'PATCH', `/v1/evidence/${evidenceId}`, {
        links: [{ displayName: 'Old review', url: 'https://wiki.example.com/reviews/old', evidenceDate: lastYear }],
      });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'needs_attention', 'nothing covers the current month');
      const got = await api(server.url, `/v1/evidence/${evidenceId}`, o.token);
      assert.equal(got.body.data.status, 'needs_attention');
      assert.match(got.body.data.statusReason, /^Stale: /);
    });

    test('links: added as attachments without a file, submitted like an upload, with their period and stamp', async () => {
      const o = await movesOrg(server);
      const withApprovers = await o.artifacts.evidence({
        name: 'Pen test',
        status: 'needs_revision',
        recurrence: 'yearly',
        approvers: [o.approver],
      });
      const without = await o.artifacts.evidence({ name: 'Policy ack', status: 'not_uploaded', controlIds: [o.controlId] });
      const stamp = await credentialStamp(server, o.client.credentialId);
      const evidenceDate = Date.UTC(2026, 2, 15);

      const seen = await feedLength(server, o.token);
      const res = await write(server, o.token, 'PATCH', `/v1/evidence/${withApprovers}`, {
        links: [
          { displayName: 'Report (vendor portal)', url: 'https://vendor.example.com/reports/2026?id=7', note: 'Signed', evidenceDate },
          { displayName: 'Summary', url: 'http://wiki.example.com/pentest' },
        ],
      });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'pending_approval', 'approvers: waits for approval');
      const got = await api(server.url, `/v1/evidence/${withApprovers}?fields=attachments`, o.token);
      const attachments = got.body.data.attachments;
      assert.equal(attachments.length, 2);
      const report = attachments.find((a: any) => a.displayName === 'Report (vendor portal)');
      assert.deepEqual(report, {
        displayName: 'Report (vendor portal)',
        type: 'link',
        url: 'https://vendor.example.com/reports/2026?id=7',
        note: 'Signed',
        addedBy: stamp,
        addedOn: res.body.data.modifiedOn,
        evidenceDate,
        periodStart: Date.UTC(2026, 0, 1),
        periodEnd: Date.UTC(2027, 0, 1) - 1,
        isCurrentPeriod: report.isCurrentPeriod,
      });
      const summary = attachments.find((a: any) => a.displayName === 'Summary');
      assert.equal(summary.evidenceDate, res.body.data.modifiedOn, 'evidenceDate defaults to now');
      assert.ok(!('note' in summary));

      const events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => e.type),
        ['evidence.attachments_added', 'evidence.status_changed'],
      );
      assert.deepEqual(
        events[0].data.attachments.map((a: any) => ({ ...a, isCurrentPeriod: undefined })),
        [report, summary].map((a: any) => ({ ...a, isCurrentPeriod: undefined })),
        'the event shows the links as GET does',
      );
      assert.deepEqual(events[1].data, { before: 'needs_revision', after: 'pending_approval' });

      const direct = await write(server, o.token, 'PATCH', `/v1/evidence/${without}`, {
        links: [{ displayName: 'Acknowledgements', url: 'https://hr.example.com/acks' }],
      });
      assert.equal(direct.body.data.status, 'uploaded', 'no approvers: uploaded, and the control flips');
      assert.equal((await api(server.url, `/v1/controls/${o.controlId}`, o.token)).body.data.status, 'compliant');
    });

    test('links: URL rules, bounds and dates, refused whole', async () => {
      const o = await movesOrg(server);
      const id = await o.artifacts.evidence({ name: 'E', status: 'not_uploaded' });
      const path = `/v1/evidence/${id}`;
      const link = (extra: Record<string, unknown>) => ({ links: [{ displayName: 'L', url: 'https://example.com/', ...extra }] });
      for (const url of [
        'javascript:alert(1)',
        'ftp://example.com/x',
        'https://user:pw@example.com/',
        'https://trusted.example@evil.example/',
        'https://exa mple.com',
        'example.com',
      ]) {
        assertRefused(await write(server, o.token, 'PATCH', path, link({ url })), 'links[0].url', undefined, url);
      }
      assertRefused(await write(server, o.token, 'PATCH', path, link({ url: `https://example.com/${'a'.repeat(2048)}` })), 'links[0].url');
      assertRefused(await write(server, o.token, 'PATCH', path, link({ displayName: '' })), 'links[0].displayName');
      assertRefused(await write(server, o.token, 'PATCH', path, link({ displayName: 'a\u202Eb' })), 'links[0].displayName');
      assertRefused(await write(server, o.token, 'PATCH', path, link({ displayName: 'x'.repeat(256) })), 'links[0].displayName');
      assertRefused(await write(server, o.token, 'PATCH', path, link({ note: 'x'.repeat(2001) })), 'links[0].note');
      assertRefused(
        await write(server, o.token, 'PATCH', path, link({ evidenceDate: Date.now() + 2 * DAY })),
        'links[0].evidenceDate',
        /future/,
      );
      assertRefused(await write(server, o.token, 'PATCH', path, link({ size: 1 })), 'links[0].size');
      assertRefused(await write(server, o.token, 'PATCH', path, { links: [] }), 'links');
      const many = Array.from({ length: 21 }, (_, i) => ({ displayName: `L${i}`, url: `https://example.com/${i}` }));
      assertRefused(await write(server, o.token, 'PATCH', path, { links: many }), 'links');
      // one bad link refuses the whole request, relevance included
      const mixed = await write(server, o.token, 'PATCH', path, {
        isRelevant: false,
        notRelevantReason: 'x',
        links: [
          { displayName: 'good', url: 'https://example.com/' },
          { displayName: 'bad', url: 'mailto:a@example.com' },
        ],
      });
      assertRefused(mixed, 'links[1].url');
      const stored = await api(server.url, `${path}?fields=attachments`, o.token);
      assert.equal(stored.body.data.status, 'not_uploaded');
      assert.equal(stored.body.data.isRelevant, true);
      assert.deepEqual(stored.body.data.attachments, []);

      // a record holds at most 100 links
      for (let i = 0; i < 5; i++) {
        const batch = Array.from({ length: 20 }, (_, j) => ({ displayName: `L${i}-${j}`, url: `https://example.com/${i}/${j}` }));
        const res = await write(server, o.token, 'PATCH', path, { links: batch });
        assert.equal(res.status, 200, show(res));
      }
      assertRefused(await write(server, o.token, 'PATCH', path, link({})), 'links', /at most 100/);
    });

    test('a write whose transaction fails leaves nothing: no change, no event; its key can be used again', async () => {
      const o = await movesOrg(server);
      const id = await o.artifacts.evidence({ name: 'E', status: 'pending_approval', controlIds: [o.controlId] });
      const seen = await feedLength(server, o.token);
      const removeTrigger = await failCompletionOfBoomKeys(server.database);
      try {
        const res = await write(server, o.token, 'POST', `/v1/evidence/${id}/approve`, undefined, 'boom-approve');
        assert.equal(res.status, 500, show(res));
        const patched = await write(
          server,
          o.token,
          'PATCH',
          `/v1/evidence/${id}`,
          { links: [{ displayName: 'L', url: 'https://example.com/' }] },
          'boom-links',
        );
        assert.equal(patched.status, 500, show(patched));
      } finally {
        await removeTrigger();
      }
      const stored = await api(server.url, `/v1/evidence/${id}?fields=attachments`, o.token);
      assert.equal(stored.body.data.status, 'pending_approval');
      assert.deepEqual(stored.body.data.attachments, []);
      assert.ok(!('lastModifiedBy' in stored.body.data));
      assert.equal((await eventsSince(server, o.token, seen)).length, 0, 'no event recorded');
      assert.equal((await api(server.url, `/v1/controls/${o.controlId}`, o.token)).body.data.status, 'non_compliant');
      const retry = await write(server, o.token, 'POST', `/v1/evidence/${id}/approve`, undefined, 'boom-approve');
      assert.equal(retry.status, 200, 'the key was released');
    });
  });
}
