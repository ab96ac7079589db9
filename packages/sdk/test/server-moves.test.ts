// The review and lifecycle moves through the SDK against the real service on every engine (demo
// data): evidence approve, requestRevision and update; policies submit, approve, publish,
// requestReview and update; replays under one Idempotency-Key, and a move the status does not
// allow thrown as a ValidationError naming `status`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NotFoundError, ValidationError, type ComplianceClient } from '../src/index.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

const namesStatus = (err: unknown) => err instanceof ValidationError && err.details.some((d) => 'field' in d && d.field === 'status');

for (const dialect of dialects) {
  describe(`SDK moves against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;
    before(async () => {
      svc = await startDemoService(dialect);
      sdk = svc.readWrite;
    });
    after(() => svc.close());

    test('evidence: approve (replayed under its key), refused a second time, requestRevision, update with links', async () => {
      const pending = (await sdk.evidence.list({ status: ['pending_approval'] })).data;
      assert.ok(pending.length >= 2, 'the demo has evidence waiting for approval');
      const id = pending[0].evidenceId;
      const approved = await sdk.evidence.approve(id, { idempotencyKey: `approve-${id}` });
      assert.equal(approved.data.status, 'uploaded');
      assert.equal(approved.response.idempotentReplayed, false);
      const replayed = await sdk.evidence.approve(id, { idempotencyKey: `approve-${id}` });
      assert.equal(replayed.response.idempotentReplayed, true);
      assert.deepEqual(replayed.data, approved.data);
      await assert.rejects(sdk.evidence.approve(id), namesStatus);

      const revised = await sdk.evidence.requestRevision(id, { rejectionReason: 'Cut off at the bottom.' });
      assert.equal(revised.data.status, 'needs_revision');
      assert.equal(revised.data.rejectionReason, 'Cut off at the bottom.');
      assert.deepEqual((await sdk.evidence.get(id)).data, revised.data);

      const linked = await sdk.evidence.update(id, { links: [{ displayName: 'Full export', url: 'https://example.com/export' }] });
      assert.ok(['uploaded', 'pending_approval'].includes(linked.data.status));
      const attachments = (await sdk.evidence.get(id, { fields: ['attachments'] })).data.attachments ?? [];
      assert.ok(attachments.some((a) => a.type === 'link' && a.url === 'https://example.com/export'));

      await assert.rejects(
        sdk.evidence.update(id, { isRelevant: false }),
        (err: unknown) => err instanceof ValidationError && err.details.some((d) => 'field' in d && d.field === 'notRelevantReason'),
      );
      await assert.rejects(sdk.evidence.approve('00000000-0000-4000-8000-000000000000'), NotFoundError);
    });

    test('policies: submit, approve when waiting, publish a named version, requestReview, update', async () => {
      const drafts = (await sdk.policies.list({ status: ['draft'] })).data;
      assert.ok(drafts.length > 0, 'the demo has draft policies');
      const id = drafts[0].policyId;
      let status = (await sdk.policies.submit(id)).data.status;
      assert.ok(['pending_approval', 'draft_approved'].includes(status));
      if (status === 'pending_approval') status = (await sdk.policies.approve(id)).data.status;
      assert.equal(status, 'draft_approved');
      await assert.rejects(sdk.policies.requestReview(id), namesStatus);
      const published = await sdk.policies.publish(id, { versionName: 'SDK 1' });
      assert.equal(published.data.status, 'published');
      const history = (await sdk.policies.get(id, { fields: ['versionHistory'] })).data.versionHistory ?? [];
      assert.equal(history[0].versionName, 'SDK 1');
      assert.equal((await sdk.policies.requestReview(id)).data.status, 'needs_review');
      const due = Date.UTC(2027, 5, 30);
      const updated = await sdk.policies.update(id, {
        nextReviewDate: due,
        documents: [{ displayName: 'Wiki', url: 'https://wiki.example.com/p' }],
      });
      assert.equal(updated.data.nextReviewDate, due);
    });
  });
}
