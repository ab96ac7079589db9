// Evidence review over HTTP (issue 26), on every database engine: approve (pending_approval →
// uploaded) and request_revision (→ needs_revision, with the reason and who asked), each answering
// the record as GET does, recorded on the feed in the same commit with the computed control and
// framework events, replayed under its Idempotency-Key, and refused from any other status with
// 400 naming `status` and the moves allowed from there. The state machine is pinned by a table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, type TestServer } from '../harness/server.ts';
import {
  assertRefused,
  credentialStamp,
  eventsSince,
  feedLength,
  movesOrg,
  newKey,
  show,
  startMovesServer,
  write,
} from '../harness/program-moves.ts';
import { EVIDENCE_STATUSES } from '../../src/shared/vocabulary.ts';
import { insertEndpointFixture } from '../harness/webhooks.ts';

const ALLOWED = {
  approve: ['pending_approval'],
  request_revision: ['uploaded', 'pending_approval', 'needs_review', 'needs_attention'],
} as const;
const TARGET = { approve: 'uploaded', request_revision: 'needs_revision' } as const;
const bodyOf = (move: keyof typeof ALLOWED) =>
  move === 'request_revision' ? { rejectionReason: 'The screenshot is cut off.' } : undefined;

for (const dialect of dialects) {
  describe(`evidence review moves (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startMovesServer(dialect);
    });
    after(() => server.close());

    test('approve: the record becomes uploaded, the control flips, the feed has it all in the same commit, GET agrees', async () => {
      const o = await movesOrg(server);
      const evidenceId = await o.artifacts.evidence({
        name: 'Access review',
        status: 'pending_approval',
        approvers: [o.approver],
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const control = await api(server.url, `/v1/controls/${o.controlId}`, o.token);
      assert.equal(control.body.data.status, 'non_compliant');
      // a webhook endpoint: every event of the move gets its delivery in the move's transaction
      const endpoint = await insertEndpointFixture(server.system, { organizationId: o.org, url: 'https://93.184.216.34/hook' });
      const seen = await feedLength(server, o.token);

      const started = Date.now();
      const key = newKey();
      const res = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/approve`, undefined, key);
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'uploaded');
      assert.deepEqual(res.body.data.lastModifiedBy, await credentialStamp(server, o.client.credentialId));
      assert.ok(res.body.data.modifiedOn >= started && res.body.data.modifiedOn <= Date.now(), 'modifiedOn is now');
      const got = await api(server.url, `/v1/evidence/${evidenceId}`, o.token);
      assert.deepEqual(res.body.data, got.body.data, 'the move answers what GET returns');

      const events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => [e.type, e.resourceId]),
        [
          ['evidence.status_changed', evidenceId],
          ['control.status_changed', o.controlId],
          ['framework.progress_changed', o.frameworkId],
        ],
      );
      assert.deepEqual(events[0].data, { before: 'pending_approval', after: 'uploaded' });
      assert.deepEqual(events[1].data, {
        before: 'non_compliant',
        after: 'compliant',
        cause: { type: 'evidence.status_changed', resourceId: evidenceId },
      });
      assert.equal(events[2].data.after.evidence.uploaded, 1);
      assert.equal(events[0].occurredAt, res.body.data.modifiedOn);
      const deliveries = await server.database.db.kysely
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('endpoint_id', '=', endpoint.endpointId)
        .execute();
      assert.deepEqual(deliveries.map((d) => d.event_id).sort(), events.map((e) => e.eventId).sort(), 'one delivery per event');
      const controlAfter = await api(server.url, `/v1/controls/${o.controlId}`, o.token);
      assert.equal(controlAfter.body.data.status, 'compliant', 'a read right after the write sees the flip');

      // The same key and body replays the answer, records nothing more.
      const replay = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/approve`, undefined, key);
      assert.equal(replay.status, 200, show(replay));
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, res.body.data);
      const replayWithEmptyObject = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/approve`, {}, key);
      assert.equal(replayWithEmptyObject.status, 200, 'no body and {} are the same request');
      assert.equal((await eventsSince(server, o.token, seen)).length, 3);

      // A second approval under a new key: not from uploaded.
      const again = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/approve`);
      assertRefused(
        again,
        'status',
        /is uploaded: approve is allowed from pending_approval; from uploaded the allowed moves are: request_revision/,
      );
    });

    test('two approvals at once under different keys: one moves the record, the other is refused; one status change recorded', async () => {
      const o = await movesOrg(server);
      const evidenceId = await o.artifacts.evidence({ name: 'Raced', status: 'pending_approval', controlIds: [o.controlId] });
      const seen = await feedLength(server, o.token);
      const answers = await Promise.all([1, 2, 3].map(() => write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/approve`)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400, 400], answers.map(show).join('\n'));
      const events = await eventsSince(server, o.token, seen);
      assert.equal(events.filter((e) => e.type === 'evidence.status_changed').length, 1);
      assert.equal(events.filter((e) => e.type === 'control.status_changed').length, 1);
    });

    test('request_revision: needs_revision with the reason, who asked and when; the control flips back', async () => {
      const o = await movesOrg(server);
      const evidenceId = await o.artifacts.evidence({
        name: 'Backups',
        status: 'uploaded',
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const seen = await feedLength(server, o.token);
      const res = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/request_revision`, {
        rejectionReason: 'The export is from last year.',
      });
      assert.equal(res.status, 200, show(res));
      const data = res.body.data;
      assert.equal(data.status, 'needs_revision');
      assert.equal(data.rejectionReason, 'The export is from last year.');
      const stamp = await credentialStamp(server, o.client.credentialId);
      assert.deepEqual(data.revisionRequestedBy, stamp);
      assert.deepEqual(data.lastModifiedBy, stamp);
      assert.equal(data.revisionRequestedOn, data.modifiedOn);
      assert.deepEqual(data, (await api(server.url, `/v1/evidence/${evidenceId}`, o.token)).body.data);

      const events = await eventsSince(server, o.token, seen);
      assert.deepEqual(
        events.map((e) => e.type),
        ['evidence.status_changed', 'evidence.updated', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.deepEqual(events[0].data, { before: 'uploaded', after: 'needs_revision' });
      const changes = events[1].data.changes;
      assert.deepEqual(Object.keys(changes).sort(), [
        'lastModifiedBy',
        'modifiedOn',
        'rejectionReason',
        'revisionRequestedBy',
        'revisionRequestedOn',
      ]);
      assert.deepEqual(changes.rejectionReason, { after: 'The export is from last year.' });
      assert.deepEqual(events[2].data.before, 'compliant');
      assert.deepEqual(events[2].data.after, 'non_compliant');
    });

    test('the state machine: every allowed move from every status, and every other one refused naming status', async () => {
      const o = await movesOrg(server);
      for (const move of Object.keys(ALLOWED) as Array<keyof typeof ALLOWED>) {
        for (const status of EVIDENCE_STATUSES) {
          const evidenceId = await o.artifacts.evidence({ name: `${move} from ${status}`, status });
          const res = await write(server, o.token, 'POST', `/v1/evidence/${evidenceId}/${move}`, bodyOf(move));
          const label = `${move} from ${status}`;
          if ((ALLOWED[move] as readonly string[]).includes(status)) {
            assert.equal(res.status, 200, `${label}: ${show(res)}`);
            assert.equal(res.body.data.status, TARGET[move], label);
          } else {
            assertRefused(res, 'status', new RegExp(`^is ${status}: ${move} is allowed from ${ALLOWED[move].join(', ')}; `), label);
            const allowedHere = (Object.keys(ALLOWED) as Array<keyof typeof ALLOWED>).filter((m) =>
              (ALLOWED[m] as readonly string[]).includes(status),
            );
            const here =
              allowedHere.length > 0
                ? `from ${status} the allowed moves are: ${allowedHere.join(', ')}`
                : `no move is allowed from ${status}`;
            const tail = `${here} (an upload, or links added with PATCH, submit evidence from any status)`;
            assert.ok(res.body.error.details[0].message.endsWith(tail), `${label}: ${res.body.error.details[0].message}`);
            const stored = await api(server.url, `/v1/evidence/${evidenceId}`, o.token);
            assert.equal(stored.body.data.status, status, `${label}: unchanged`);
            assert.ok(!('lastModifiedBy' in stored.body.data), `${label}: nothing written`);
          }
        }
      }
    });

    test('unknown records, another organization’s, bad bodies and scopes', async () => {
      const o = await movesOrg(server);
      const other = await movesOrg(server, 'Other Org');
      const theirs = await other.artifacts.evidence({ name: 'Theirs', status: 'pending_approval' });
      const mine = await o.artifacts.evidence({ name: 'Mine', status: 'pending_approval' });
      for (const move of ['approve', 'request_revision'] as const) {
        for (const id of ['00000000-0000-4000-8000-000000000000', theirs]) {
          const res = await write(server, o.token, 'POST', `/v1/evidence/${id}/${move}`, bodyOf(move));
          assert.equal(res.status, 404, show(res));
          assert.equal(res.body.error.code, 'not_found');
        }
      }
      const theirsNow = await api(server.url, `/v1/evidence/${theirs}`, other.token);
      assert.equal(theirsNow.body.data.status, 'pending_approval', 'another organization’s record is untouched');

      const path = `/v1/evidence/${mine}/request_revision`;
      assertRefused(await write(server, o.token, 'POST', path, {}), 'rejectionReason', undefined, 'missing reason');
      assertRefused(await write(server, o.token, 'POST', path, { rejectionReason: '   ' }), 'rejectionReason', undefined, 'blank reason');
      assertRefused(
        await write(server, o.token, 'POST', path, { rejectionReason: 'x'.repeat(2001) }),
        'rejectionReason',
        undefined,
        'too long',
      );
      assertRefused(await write(server, o.token, 'POST', path, { rejectionReason: 'ok', extra: 1 }), 'extra', undefined, 'unknown field');
      assertRefused(
        await write(server, o.token, 'POST', `/v1/evidence/${mine}/approve`, { note: 'x' }),
        'note',
        undefined,
        'approve takes no fields',
      );
      const noKey = await write(server, o.token, 'POST', `/v1/evidence/${mine}/approve`, undefined, null);
      assert.equal(noKey.status, 400);
      assert.equal(noKey.body.error.code, 'idempotency_key_required');

      const reader = await createOrgWithCredential(server.system, { accessLevel: 'read_only' });
      const readToken = await getToken(server.url, reader);
      const forbidden = await write(server, readToken, 'POST', `/v1/evidence/${mine}/approve`);
      assert.equal(forbidden.status, 403, show(forbidden));

      const stillPending = await api(server.url, `/v1/evidence/${mine}`, o.token);
      assert.equal(stillPending.body.data.status, 'pending_approval', 'no refused request changed anything');

      // The plural alias names the same record and the same moves.
      const plural = await write(server, o.token, 'POST', `/v1/evidences/${mine}/approve`);
      assert.equal(plural.status, 200, show(plural));
      assert.equal(plural.body.data.status, 'uploaded');
    });
  });
}
