// PATCH /v1/policies/{policyId} over HTTP (issue 26), on every database engine: relevance with a
// reason (and the control it flips), the next review date, documents added as external links (a
// not_uploaded policy becomes draft), their rules and bounds, and nothing partial.
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

for (const dialect of dialects) {
  describe(`PATCH /v1/policies/{policyId} (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startMovesServer(dialect);
    });
    after(() => server.close());

    test('relevance and the next review date; each change on the feed with the control it flips', async () => {
      const o = await movesOrg(server);
      const id = await o.artifacts.policy({
        name: 'Travel',
        status: 'draft',
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const path = `/v1/policies/${id}`;
      assertRefused(await write(server, o.token, 'PATCH', path, { isRelevant: false }), 'notRelevantReason', /required/);
      assertRefused(await write(server, o.token, 'PATCH', path, { notRelevantReason: 'why' }), 'notRelevantReason');
      assertRefused(await write(server, o.token, 'PATCH', path, { nextReviewDate: -1 }), 'nextReviewDate');
      assertRefused(await write(server, o.token, 'PATCH', path, { nextReviewDate: 'soon' }), 'nextReviewDate');
      assertRefused(await write(server, o.token, 'PATCH', path, {}), 'body');

      let seen = await feedLength(server, o.token);
      const res = await write(server, o.token, 'PATCH', path, { isRelevant: false, notRelevantReason: 'Nobody travels.' });
      assert.equal(res.status, 200, show(res));
      assert.deepEqual(res.body.data, (await api(server.url, path, o.token)).body.data);
      assert.equal(res.body.data.notRelevantReason, undefined, 'GET of a policy shows notRelevantReason only in the list');
      let events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => e.type),
        ['policy.updated', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.deepEqual(events[0].data.changes.isRelevant, { before: true, after: false });
      assert.deepEqual(events[1].data.after, 'not_applicable');
      const listed = await api(server.url, '/v1/policies?fields=notRelevantReason', o.token);
      assert.equal(listed.body.data.find((p: any) => p.policyId === id).notRelevantReason, 'Nobody travels.');

      seen = await feedLength(server, o.token);
      const due = Date.UTC(2027, 0, 31);
      const dated = await write(server, o.token, 'PATCH', path, { nextReviewDate: due, isRelevant: true });
      assert.equal(dated.body.data.nextReviewDate, due, show(dated));
      assert.equal(dated.body.data.isRelevant, true);
      events = await eventsSince(server, o.token, seen);
      assert.deepEqual(Object.keys(events[0].data.changes).sort(), ['isRelevant', 'modifiedOn', 'nextReviewDate']);
      const cleared = await write(server, o.token, 'PATCH', path, { nextReviewDate: null });
      assert.equal(cleared.body.data.nextReviewDate, null);
      const listedAgain = await api(server.url, '/v1/policies?fields=notRelevantReason', o.token);
      assert.ok(!('notRelevantReason' in listedAgain.body.data.find((p: any) => p.policyId === id)), 'relevant again: the reason is gone');
    });

    test('documents: external links added; a not_uploaded policy becomes draft; rules and bounds', async () => {
      const o = await movesOrg(server);
      const id = await o.artifacts.policy({ name: 'Vendor', status: 'not_uploaded' });
      const path = `/v1/policies/${id}`;
      const stamp = await credentialStamp(server, o.client.credentialId);
      const doc = (extra: Record<string, unknown>) => ({ documents: [{ displayName: 'D', url: 'https://example.com/', ...extra }] });
      for (const url of ['javascript:alert(1)', 'https://u:p@example.com/', 'file:///etc/passwd']) {
        assertRefused(await write(server, o.token, 'PATCH', path, doc({ url })), 'documents[0].url', undefined, url);
      }
      assertRefused(await write(server, o.token, 'PATCH', path, doc({ evidenceDate: 1 })), 'documents[0].evidenceDate');
      assertRefused(await write(server, o.token, 'PATCH', path, doc({ note: 'x'.repeat(2001) })), 'documents[0].note');
      const many = Array.from({ length: 21 }, (_, i) => ({ displayName: `D${i}`, url: `https://example.com/${i}` }));
      assertRefused(await write(server, o.token, 'PATCH', path, { documents: many }), 'documents');
      assert.equal((await api(server.url, path, o.token)).body.data.status, 'not_uploaded', 'nothing partial');

      const seen = await feedLength(server, o.token);
      const res = await write(server, o.token, 'PATCH', path, {
        documents: [{ displayName: 'Vendor policy (Confluence)', url: 'https://wiki.example.com/vendor', note: 'Current copy' }],
      });
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'draft');
      assert.ok(!('documents' in res.body.data), 'answers GET’s default shape');
      const got = await api(server.url, `${path}?fields=documents`, o.token);
      const document = {
        displayName: 'Vendor policy (Confluence)',
        type: 'link',
        url: 'https://wiki.example.com/vendor',
        note: 'Current copy',
        addedBy: stamp,
        addedOn: res.body.data.modifiedOn,
      };
      assert.deepEqual(got.body.data.documents, [document]);
      const events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => e.type),
        ['policy.status_changed', 'policy.updated'],
      );
      assert.deepEqual(events[0].data, { before: 'not_uploaded', after: 'draft' });
      assert.deepEqual(events[1].data.changes.documents, { before: [], after: [document] });

      const more = await write(server, o.token, 'PATCH', path, {
        documents: [{ displayName: 'Appendix', url: 'https://wiki.example.com/a' }],
      });
      assert.equal(more.body.data.status, 'draft', 'other statuses are kept');
      assert.equal((await api(server.url, `${path}?fields=documents`, o.token)).body.data.documents.length, 2);
    });
  });
}
