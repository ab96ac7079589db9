// The policy lifecycle over HTTP (issue 26), on every database engine: submit, approve, publish
// (a new version) and request_review, each answering the policy as GET does, recorded on the feed
// in the same commit with the computed control and framework events, replayed under its
// Idempotency-Key, and refused from any other status with 400 naming `status` and the moves
// allowed from there. The state machine is pinned by a table of every move from every status.
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
import { POLICY_STATUSES } from '../../src/shared/vocabulary.ts';

const ALLOWED = {
  submit: ['draft', 'needs_review', 'needs_attention'],
  approve: ['pending_approval'],
  publish: ['draft_approved'],
  request_review: ['published', 'needs_attention'],
} as const;
type Move = keyof typeof ALLOWED;
const MOVES = Object.keys(ALLOWED) as Move[];
/** Where each move leads (submit: for a policy without approvers). */
const TARGET: Record<Move, string> = {
  submit: 'draft_approved',
  approve: 'draft_approved',
  publish: 'published',
  request_review: 'needs_review',
};

for (const dialect of dialects) {
  describe(`policy lifecycle moves (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startMovesServer(dialect);
    });
    after(() => server.close());

    test('draft → submit → approve → publish → request_review → … → publish again: statuses, versions, stamps, feed, control', async () => {
      const o = await movesOrg(server);
      const policyId = await o.artifacts.policy({
        name: 'Access Control Policy',
        status: 'draft',
        versionNumber: '0.1',
        approvers: [o.approver],
        controlIds: [o.controlId],
        requirementIds: [o.requirementId],
      });
      const stamp = await credentialStamp(server, o.client.credentialId);
      const controlStatus = async () => (await api(server.url, `/v1/controls/${o.controlId}`, o.token)).body.data.status;
      assert.equal(await controlStatus(), 'non_compliant');
      /** versionNumber, an optional field of the list */
      const versionNumber = async () => {
        const list = await api(server.url, '/v1/policies?fields=versionNumber', o.token);
        return list.body.data.find((p: any) => p.policyId === policyId).versionNumber;
      };

      /** The move, checked: 200, the status, the answer equals GET, and the feed's new events (returned). */
      const step = async (move: Move, status: string, body?: unknown) => {
        const seen = await feedLength(server, o.token);
        const res = await write(server, o.token, 'POST', `/v1/policies/${policyId}/${move}`, body);
        assert.equal(res.status, 200, `${move}: ${show(res)}`);
        assert.equal(res.body.data.status, status, move);
        assert.deepEqual(res.body.data.lastModifiedBy, stamp, `${move}: lastModifiedBy`);
        assert.deepEqual(res.body.data, (await api(server.url, `/v1/policies/${policyId}`, o.token)).body.data, `${move}: GET agrees`);
        const events = await eventsSince(server, o.token, seen);
        assert.equal(events[0].type, 'policy.status_changed', move);
        assert.equal(events[0].data.after, status, move);
        for (const e of events) assert.equal(e.occurredAt, res.body.data.modifiedOn, `${move}: one instant`);
        return { data: res.body.data, events };
      };

      let r = await step('submit', 'pending_approval');
      assert.deepEqual(
        r.events.map((e) => e.type),
        ['policy.status_changed'],
        'nothing computed moves: neither status is published',
      );
      r = await step('approve', 'draft_approved');
      r = await step('publish', 'published');
      assert.equal(await versionNumber(), '1.0');
      assert.deepEqual(r.data.publishedBy, stamp);
      assert.equal(r.data.publishedOn, r.data.modifiedOn);
      assert.deepEqual(
        r.events.map((e) => [e.type, e.resourceId]),
        [
          ['policy.status_changed', policyId],
          ['policy.updated', policyId],
          ['control.status_changed', o.controlId],
          ['framework.progress_changed', o.frameworkId],
        ],
      );
      assert.deepEqual(
        Object.keys(r.events[1].data.changes).sort(),
        ['modifiedOn', 'publishedBy', 'publishedOn'],
        'lastModifiedBy was already the caller',
      );
      assert.deepEqual(r.events[1].data.changes.publishedBy, { after: stamp });
      assert.deepEqual(r.events[2].data, {
        before: 'non_compliant',
        after: 'compliant',
        cause: { type: 'policy.status_changed', resourceId: policyId },
      });
      assert.equal(r.events[3].data.after.policies.published, 1);
      assert.equal(await controlStatus(), 'compliant', 'a read right after the write sees the flip');

      r = await step('request_review', 'needs_review');
      assert.deepEqual(
        r.events.map((e) => e.type),
        ['policy.status_changed', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.equal(await controlStatus(), 'non_compliant');
      await step('submit', 'pending_approval');
      await step('approve', 'draft_approved');
      r = await step('publish', 'published');
      assert.equal(await versionNumber(), '1.1', 'the next minor version');

      const history = await api(server.url, `/v1/policies/${policyId}?fields=versionHistory`, o.token);
      assert.deepEqual(
        history.body.data.versionHistory.map((v: any) => [v.versionName, v.publishedBy]),
        [
          ['1.1', stamp],
          ['1.0', stamp],
        ],
      );
      r = await step('request_review', 'needs_review');
      await step('submit', 'pending_approval');
      await step('approve', 'draft_approved');
      r = await step('publish', 'published', { versionName: '2.0' });
      assert.equal(await versionNumber(), '2.0', 'a named version');
    });

    test('submit without approvers skips approval: draft_approved', async () => {
      const o = await movesOrg(server);
      const policyId = await o.artifacts.policy({ name: 'No approvers', status: 'draft' });
      const res = await write(server, o.token, 'POST', `/v1/policies/${policyId}/submit`);
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.status, 'draft_approved');
    });

    test('the state machine: every allowed move from every status, and every other one refused naming status', async () => {
      const o = await movesOrg(server);
      for (const move of MOVES) {
        for (const status of POLICY_STATUSES) {
          const policyId = await o.artifacts.policy({ name: `${move} from ${status}`, status });
          const res = await write(server, o.token, 'POST', `/v1/policies/${policyId}/${move}`);
          const label = `${move} from ${status}`;
          if ((ALLOWED[move] as readonly string[]).includes(status)) {
            assert.equal(res.status, 200, `${label}: ${show(res)}`);
            assert.equal(res.body.data.status, TARGET[move], label);
          } else {
            const here = MOVES.filter((m) => (ALLOWED[m] as readonly string[]).includes(status));
            const tail = here.length > 0 ? `from ${status} the allowed moves are: ${here.join(', ')}` : `no move is allowed from ${status}`;
            assertRefused(res, 'status', new RegExp(`^is ${status}: ${move} is allowed from ${ALLOWED[move].join(', ')}; ${tail}$`), label);
            const stored = await api(server.url, `/v1/policies/${policyId}`, o.token);
            assert.equal(stored.body.data.status, status, `${label}: unchanged`);
            assert.ok(!('lastModifiedBy' in stored.body.data), `${label}: nothing written`);
          }
        }
      }
    });

    test('publish: named versions, a name used before, a last version not numbered major.minor', async () => {
      const o = await movesOrg(server);
      const approved = () => o.artifacts.policy({ name: 'P', status: 'draft_approved' });
      const latestVersion = async (policyId: string) =>
        (await api(server.url, `/v1/policies/${policyId}?fields=versionHistory`, o.token)).body.data.versionHistory[0];
      let id = await approved();
      await o.artifacts.version(id, '3.4', Date.UTC(2026, 0, 1));
      let res = await write(server, o.token, 'POST', `/v1/policies/${id}/publish`);
      assert.equal((await latestVersion(id)).versionName, '3.5', show(res));

      id = await approved();
      await o.artifacts.version(id, '1.0', Date.UTC(2026, 0, 1));
      assertRefused(await write(server, o.token, 'POST', `/v1/policies/${id}/publish`, { versionName: '1.0' }), 'versionName', /already/);
      assertRefused(await write(server, o.token, 'POST', `/v1/policies/${id}/publish`, { versionName: ' ' }), 'versionName');
      assertRefused(await write(server, o.token, 'POST', `/v1/policies/${id}/publish`, { versionName: 'x'.repeat(65) }), 'versionName');
      assertRefused(await write(server, o.token, 'POST', `/v1/policies/${id}/publish`, { version: '2' }), 'version');

      id = await approved();
      await o.artifacts.version(id, 'January edition', Date.UTC(2026, 0, 1));
      res = await write(server, o.token, 'POST', `/v1/policies/${id}/publish`);
      assertRefused(res, 'versionName', /not numbered/);
      const stored = await api(server.url, `/v1/policies/${id}?fields=versionHistory`, o.token);
      assert.equal(stored.body.data.status, 'draft_approved', 'nothing partial');
      assert.equal(stored.body.data.versionHistory.length, 1, 'no version added');
      res = await write(server, o.token, 'POST', `/v1/policies/${id}/publish`, { versionName: 'February edition' });
      assert.equal(res.status, 200, show(res));
      assert.equal((await latestVersion(id)).versionName, 'February edition');
    });

    test('idempotency, unknown and other organizations’ policies, scopes', async () => {
      const o = await movesOrg(server);
      const other = await movesOrg(server, 'Other Org');
      const theirs = await other.artifacts.policy({ name: 'Theirs', status: 'draft_approved' });
      const mine = await o.artifacts.policy({ name: 'Mine', status: 'draft_approved' });
      for (const move of MOVES) {
        for (const id of ['00000000-0000-4000-8000-000000000000', theirs]) {
          const res = await write(server, o.token, 'POST', `/v1/policies/${id}/${move}`);
          assert.equal(res.status, 404, `${move} ${id}: ${show(res)}`);
          assert.equal(res.body.error.code, 'not_found');
        }
      }
      const patched = await write(server, o.token, 'PATCH', `/v1/policies/${theirs}`, { nextReviewDate: null });
      assert.equal(patched.status, 404, show(patched));
      assert.equal((await api(server.url, `/v1/policies/${theirs}`, other.token)).body.data.status, 'draft_approved');

      const key = newKey();
      const seen = await feedLength(server, o.token);
      const first = await write(server, o.token, 'POST', `/v1/policies/${mine}/publish`, { versionName: '7.0' }, key);
      assert.equal(first.status, 200, show(first));
      const replay = await write(server, o.token, 'POST', `/v1/policies/${mine}/publish`, { versionName: '7.0' }, key);
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);
      const reused = await write(server, o.token, 'POST', `/v1/policies/${mine}/publish`, { versionName: '7.1' }, key);
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error.code, 'idempotency_key_reused');
      const otherMove = await write(server, o.token, 'POST', `/v1/policies/${mine}/request_review`, { versionName: '7.0' }, key);
      assert.equal(otherMove.status, 400, 'request_review takes no fields');
      const sameKeyOtherMove = await write(server, o.token, 'POST', `/v1/policies/${mine}/request_review`, undefined, key);
      assert.equal(sameKeyOtherMove.status, 409, 'a key names one request: another move under it is refused');
      const events = await eventsSince(server, o.token, seen);
      assert.equal(events.filter((e) => e.type === 'policy.status_changed').length, 1, 'one publication recorded');

      const reader = await createOrgWithCredential(server.system, { accessLevel: 'read_only' });
      const forbidden = await write(server, await getToken(server.url, reader), 'POST', `/v1/policies/${mine}/request_review`);
      assert.equal(forbidden.status, 403, show(forbidden));
    });
  });
}
