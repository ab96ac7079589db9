// The computed events (issue 15) against the read endpoints, over the demo organization, on every
// database engine: for several uploads that flip an evidence record, the control.status_changed and
// framework.progress_changed events recorded are exactly the differences between GET /v1/controls
// and GET /v1/frameworks before and after the upload (no event missing, none extra, same values).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, getToken, type TestServer } from '../harness/server.ts';
import { assertNoUncaughtException, startLocalDiskUploads, stopLocalDiskUploads } from '../harness/uploads.ts';
import { newKey } from '../harness/vulnerability-writes.ts';
import { completableEvidence, eventCounter, storedEvents } from '../harness/events.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';

for (const dialect of dialects) {
  describe(`computed events match the read endpoints (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;
    const now = Date.now();

    before(async () => {
      ({ server, blobDir } = await startLocalDiskUploads(dialect, () => now, 'cds-computed-blobs-'));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    test('each upload records exactly the control and framework changes the reads show', async () => {
      const demo = await createDemoOrganization(server.system, { scale: 1, name: 'Computed events demo' });
      const org = demo.organization.id;
      const token = await getToken(server.url, demo.readWrite);
      // Relevant records linked to a control, not yet uploaded, without approvers (an upload makes them complete).
      const candidates = (await completableEvidence(server.database, org, 6)).map((id) => ({ id }));
      assert.ok(candidates.length >= 3, `the demo has records to flip (${candidates.length})`);

      const state = async () => {
        const controls = await api(server.url, '/v1/controls', token);
        const frameworks = await api(server.url, '/v1/frameworks', token);
        assert.equal(controls.status, 200);
        return {
          controls: new Map<string, string>(controls.body.data.map((c: any) => [c.controlId, c.status])),
          frameworks: new Map<string, unknown>(frameworks.body.data.map((f: any) => [f.frameworkId, f.complianceProgress])),
        };
      };
      let flips = 0;
      for (const { id } of candidates) {
        const was = await state();
        const seq = await eventCounter(server.database, org);
        const form = new FormData();
        form.append('evidenceDate', String(now - 60_000));
        form.append('files', new Blob([new TextEncoder().encode('x\n')]), 'x.txt');
        const res = await api(server.url, `/v1/evidence/${id}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': newKey() },
          body: form,
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const is = await state();
        const events = (await storedEvents(server.database, org)).filter((e) => e.seq > seq);

        const expectedControls = [...is.controls]
          .filter(([cid, status]) => was.controls.get(cid) !== status)
          .map(([cid, status]) => ({ id: cid, before: was.controls.get(cid), after: status }))
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        const gotControls = events
          .filter((e) => e.type === 'control.status_changed')
          .map((e) => {
            assert.deepEqual(e.data.cause, { type: 'evidence.status_changed', resourceId: id });
            return { id: e.resourceId, before: e.data.before, after: e.data.after };
          });
        assert.deepEqual(gotControls, expectedControls, `controls after uploading ${id}`);

        const expectedFrameworks = [...is.frameworks]
          .filter(([fid, progress]) => JSON.stringify(was.frameworks.get(fid)) !== JSON.stringify(progress))
          .map(([fid, progress]) => ({ id: fid, before: was.frameworks.get(fid), after: progress }))
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        const gotFrameworks = events
          .filter((e) => e.type === 'framework.progress_changed')
          .map((e) => ({ id: e.resourceId, before: e.data.before, after: e.data.after }));
        assert.deepEqual(gotFrameworks, expectedFrameworks, `frameworks after uploading ${id}`);
        flips += gotControls.length + gotFrameworks.length;
      }
      assert.ok(flips > 0, 'some upload changed something computed');
    });
  });
}
