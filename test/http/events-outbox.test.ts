// The transactional outbox (issue 15) over real HTTP, on every database engine: every write records
// its events in its own transaction (an event exists if and only if the change committed), numbered
// in commit order; idempotent replays record nothing; the computed control and framework events
// appear exactly when an upload flips them.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { assertNoUncaughtException, NOW, startLocalDiskUploads, stopLocalDiskUploads, type Harness } from '../harness/uploads.ts';
import { minimal, newKey, patch, post, show } from '../harness/vulnerability-writes.ts';
import { eventCounter, failCompletionOfBoomKeys, readAll, storedEvents } from '../harness/events.ts';

for (const dialect of dialects) {
  describe(`the events outbox (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;
    const clock = NOW;

    before(async () => {
      ({ server, blobDir, h } = await startLocalDiskUploads(dialect, () => clock, 'cds-events-blobs-'));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    async function newWriter(name: string) {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
      return { client, token: await getToken(server.url, client), base: fixtures(server.database.db, client.organizationId) };
    }

    const upload = (evidenceId: string, token: string, key = newKey()) =>
      api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: (() => {
          const form = new FormData();
          form.append('evidenceDate', String(NOW - 3600_000));
          form.append('files', new Blob([new TextEncoder().encode('export\n')]), 'review.txt');
          return form;
        })(),
      });

    test('a create and an update record one event each, in the transaction, with the GET shape and the changed fields', async () => {
      const { client, token, base } = await newWriter('Outbox vulns');
      await base.person('Ada Admin', 'ada@example.com');
      const created = await post(server, token, minimal('VUL-0001'));
      assert.equal(created.status, 201, show(created));
      const get = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token);
      let events = await storedEvents(server.database, client.organizationId);
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'vulnerability.created');
      assert.equal(events[0].resourceType, 'vulnerability');
      assert.equal(events[0].resourceId, 'api%23VUL-0001');
      assert.equal(events[0].seq, 1);
      assert.match(events[0].id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.equal(events[0].occurredAt, clock);
      assert.deepEqual(events[0].data, { vulnerability: get.body.data });

      const updated = await patch(server, token, 'api%23VUL-0001', {
        assigneeEmail: 'ada@example.com',
        reportLink: 'https://example.com/r',
      });
      assert.equal(updated.status, 200, show(updated));
      events = await storedEvents(server.database, client.organizationId);
      assert.equal(events.length, 2);
      const { changes } = events[1].data;
      assert.equal(events[1].type, 'vulnerability.updated');
      assert.deepEqual(changes.reportLink, { after: 'https://example.com/r' }, 'absent before: no `before`');
      assert.deepEqual(changes.assignees, { before: [], after: updated.body.data.assignees });
      for (const field of Object.keys(changes)) assert.notDeepEqual(changes[field].before, changes[field].after, field);
      assert.ok(!('title' in changes), 'an unchanged field is not listed');
      assert.equal(await eventCounter(server.database, client.organizationId), 2);
    });

    test('an idempotent replay records nothing; a refused write records nothing', async () => {
      const { client, token } = await newWriter('Outbox replays');
      const key = newKey();
      assert.equal((await post(server, token, minimal('VUL-0001'), key)).status, 201);
      const replay = await post(server, token, minimal('VUL-0001'), key);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      const patchKey = newKey();
      assert.equal((await patch(server, token, 'api%23VUL-0001', { reportLink: 'https://example.com/a' }, patchKey)).status, 200);
      assert.equal(
        (await patch(server, token, 'api%23VUL-0001', { reportLink: 'https://example.com/a' }, patchKey)).headers.get(
          'idempotent-replayed',
        ),
        'true',
      );
      const evidenceId = await h.evidence();
      // h's evidence belongs to h's organization: use h's token for it
      const uploadKey = newKey();
      const before = (await storedEvents(server.database, h.client.organizationId)).length;
      assert.equal((await upload(evidenceId, h.token, uploadKey)).status, 201);
      const afterFirst = (await storedEvents(server.database, h.client.organizationId)).length;
      assert.equal((await upload(evidenceId, h.token, uploadKey)).headers.get('idempotent-replayed'), 'true');
      assert.equal((await storedEvents(server.database, h.client.organizationId)).length, afterFirst, 'the upload replay added none');
      assert.ok(afterFirst > before);

      // refused: a duplicate key, a bad link, an unknown assignee, an upload without files
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 400);
      assert.equal((await patch(server, token, 'api%23VUL-0001', { reportLink: 'ftp://x' })).status, 400);
      assert.equal((await patch(server, token, 'api%23VUL-0001', { assigneeEmail: 'nobody@example.com' })).status, 400);
      assert.equal((await patch(server, token, 'api%23VUL-9999', { reportLink: '' })).status, 404);
      const noFiles = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, h.token, {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: (() => {
          const form = new FormData();
          form.append('evidenceDate', String(NOW));
          return form;
        })(),
      });
      assert.equal(noFiles.status, 400, show(noFiles));
      const events = await storedEvents(server.database, client.organizationId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['vulnerability.created', 'vulnerability.updated'],
      );
      assert.equal((await storedEvents(server.database, h.client.organizationId)).length, afterFirst);
      assert.equal(await eventCounter(server.database, client.organizationId), 2, 'no number was taken by a refused write');
    });

    test('a write that rolls back after recording its events leaves no event and no number taken', async () => {
      const { client, token } = await newWriter('Outbox rollback');
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 201);
      const evidenceId = await h.evidence();
      const hBefore = await storedEvents(server.database, h.client.organizationId);
      const hCounter = await eventCounter(server.database, h.client.organizationId);
      const restore = await failCompletionOfBoomKeys(server.database);
      try {
        const created = await post(server, token, minimal('VUL-0002'), `boom-${newKey()}`);
        assert.equal(created.status, 500, show(created));
        const updated = await patch(server, token, 'api%23VUL-0001', { reportLink: 'https://example.com/x' }, `boom-${newKey()}`);
        assert.equal(updated.status, 500, show(updated));
        const uploaded = await upload(evidenceId, h.token, `boom-${newKey()}`);
        assert.equal(uploaded.status, 500, show(uploaded));
      } finally {
        await restore();
      }
      const events = await storedEvents(server.database, client.organizationId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['vulnerability.created'],
      );
      assert.equal(await eventCounter(server.database, client.organizationId), 1);
      assert.deepEqual(await storedEvents(server.database, h.client.organizationId), hBefore);
      assert.equal(await eventCounter(server.database, h.client.organizationId), hCounter);
      // the change itself rolled back too
      assert.equal((await api(server.url, '/v1/vulnerabilities/api%23VUL-0002', token)).status, 404);
      assert.equal((await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token)).body.data.reportLink, undefined);
      // and the next write numbers on from 1, with no gap
      assert.equal((await post(server, token, minimal('VUL-0003'))).status, 201);
      assert.deepEqual(
        (await storedEvents(server.database, client.organizationId)).map((e) => e.seq),
        [1, 2],
      );
    });

    test('20 concurrent updates of one finding give exactly 20 events, numbered 1-20 in commit order', async () => {
      const { client, token, base } = await newWriter('Outbox concurrency');
      const emails: string[] = [];
      for (let i = 0; i < 20; i++) {
        emails.push(`person${i}@example.com`);
        await base.person(`Person ${i}`, emails[i]);
      }
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 201);
      const results = await Promise.all(emails.map((email) => patch(server, token, 'api%23VUL-0001', { assigneeEmail: email })));
      for (const r of results) assert.equal(r.status, 200, show(r));
      const events = (await storedEvents(server.database, client.organizationId)).filter((e) => e.type === 'vulnerability.updated');
      assert.equal(events.length, 20);
      assert.deepEqual(
        events.map((e) => e.seq),
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
      // Commit order: each update saw the assignee the previous one (in number order) committed.
      const assigneeOf = (list: { email: string }[] | undefined) => list?.[0]?.email;
      assert.equal(assigneeOf(events[0].data.changes.assignees.before), undefined);
      for (let i = 1; i < 20; i++) {
        assert.equal(
          assigneeOf(events[i].data.changes.assignees.before),
          assigneeOf(events[i - 1].data.changes.assignees.after),
          `event ${i + 2}'s before is event ${i + 1}'s after`,
        );
      }
      const final = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token);
      assert.equal(final.body.data.assignees[0].email, assigneeOf(events[19].data.changes.assignees.after));
      assert.equal(new Set(events.map((e) => assigneeOf(e.data.changes.assignees.after))).size, 20, 'every update is there once');
      // the feed gives them in the same order
      const { events: fed } = await readAll(server, token, { types: 'vulnerability.updated' });
      assert.deepEqual(
        fed.map((e) => e.eventId),
        events.map((e) => e.id),
      );
    });

    test('20 concurrent creates give exactly 20 events with 20 distinct numbers', async () => {
      const { client, token } = await newWriter('Outbox creates');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(server, token, minimal(`VUL-${1000 + i}`))));
      for (const r of results) assert.equal(r.status, 201, show(r));
      const events = await storedEvents(server.database, client.organizationId);
      assert.equal(events.length, 20);
      assert.deepEqual(
        events.map((e) => e.seq),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(new Set(events.map((e) => e.resourceId)).size, 20);
      assert.equal(new Set(events.map((e) => e.id)).size, 20);
    });

    test("the console's credential create and revoke record credential events (and a second revoke none)", async () => {
      const { client } = await newWriter('Outbox console');
      const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };
      const password = 'correct horse battery staple';
      await createAdminFor({
        ctx: server.system,
        input: { organizationId: client.organizationId, email: 'admin@example.com', password },
        actor: cli,
      });
      const session = await api(server.url, '/console/api/session', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password }),
      });
      assert.equal(session.status, 200, show(session));
      const headers = { cookie: session.headers.get('set-cookie')!.split(';')[0], 'x-csrf-token': session.body.data.csrfToken };
      const created = await api(server.url, '/console/api/credentials', undefined, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Console made', accessLevel: 'read_only' }),
      });
      assert.equal(created.status, 201, show(created));
      const id = created.body.data.id;
      for (let i = 0; i < 2; i++) {
        const revoked = await api(server.url, `/console/api/credentials/${id}/revoke`, undefined, { method: 'POST', headers });
        assert.ok(revoked.status < 300, show(revoked));
      }
      const events = await storedEvents(server.database, client.organizationId);
      assert.deepEqual(
        events.map((e) => [e.type, e.resourceId, e.data.credential.status]),
        [
          ['credential.created', id, 'active'],
          ['credential.revoked', id, 'revoked'],
        ],
      );
      assert.ok(!JSON.stringify(events).includes(created.body.data.clientSecret), 'never the secret');
    });

    describe('computed events', () => {
      test('an upload that flips a control records control.status_changed and framework.progress_changed, matching GET before and after', async () => {
        const org = h.client.organizationId;
        const base = fixtures(server.database.db, org);
        const framework = await base.framework('Events framework');
        const requirement = await base.requirement(framework, 'EV-1');
        const control = await base.control('EV-CTL-1', { requirementIds: [requirement] });
        const policy = await base.policy('published');
        const evidenceId = await h.evidence({ status: 'not_uploaded' });
        await base.map('policy', policy, { controlIds: [control], requirementIds: [requirement] });
        await base.map('evidence', evidenceId, { controlIds: [control], requirementIds: [requirement] });

        const frameworkOf = async () =>
          (await api(server.url, '/v1/frameworks', h.token)).body.data.find((f: any) => f.frameworkId === framework).complianceProgress;
        const controlOf = async () => (await api(server.url, `/v1/controls/${control}`, h.token)).body.data.status;
        const progressBefore = await frameworkOf();
        assert.equal(await controlOf(), 'non_compliant');
        const seqBefore = await eventCounter(server.database, org);

        assert.equal((await upload(evidenceId, h.token)).status, 201);
        const events = (await storedEvents(server.database, org)).filter((e) => e.seq > seqBefore);
        assert.deepEqual(
          events.map((e) => `${e.type} ${e.resourceId}`),
          [
            `evidence.attachments_added ${evidenceId}`,
            `evidence.status_changed ${evidenceId}`,
            `control.status_changed ${control}`,
            `framework.progress_changed ${framework}`,
          ],
        );
        assert.deepEqual(events[1].data, { before: 'not_uploaded', after: 'uploaded' });
        assert.deepEqual(events[2].data, {
          before: 'non_compliant',
          after: 'compliant',
          cause: { type: 'evidence.status_changed', resourceId: evidenceId },
        });
        assert.equal(await controlOf(), 'compliant');
        const progressAfter = await frameworkOf();
        assert.deepEqual(events[3].data, { before: progressBefore, after: progressAfter });
        assert.notDeepEqual(progressBefore, progressAfter);
        const attachments = (await api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, h.token)).body.data.attachments;
        assert.deepEqual(events[0].data, { attachments });

        // Uploading again changes neither the status nor anything computed.
        const seqAgain = await eventCounter(server.database, org);
        assert.equal((await upload(evidenceId, h.token)).status, 201);
        assert.deepEqual(
          (await storedEvents(server.database, org)).filter((e) => e.seq > seqAgain).map((e) => e.type),
          ['evidence.attachments_added'],
        );
      });

      test('no computed event when the flip changes no control status nor progress', async () => {
        const org = h.client.organizationId;
        const base = fixtures(server.database.db, org);
        // an out-of-scope control mapped to no framework: it stays not_applicable
        const outOfScope = await base.control('EV-CTL-OUT', { scope: 'out_of_scope' });
        const linked = await h.evidence({ status: 'needs_attention' });
        await base.map('evidence', linked, { controlIds: [outOfScope] });
        // a control with another incomplete artifact: it stays non_compliant (and is in no framework)
        const other = await base.control('EV-CTL-2');
        const draft = await base.policy('draft');
        const second = await h.evidence({ status: 'not_uploaded' });
        await base.map('policy', draft, { controlIds: [other] });
        await base.map('evidence', second, { controlIds: [other] });
        // an evidence record linked to nothing
        const lonely = await h.evidence({ status: 'not_uploaded' });

        for (const evidenceId of [linked, second, lonely]) {
          const seq = await eventCounter(server.database, org);
          assert.equal((await upload(evidenceId, h.token)).status, 201);
          assert.deepEqual(
            (await storedEvents(server.database, org)).filter((e) => e.seq > seq).map((e) => e.type),
            ['evidence.attachments_added', 'evidence.status_changed'],
            evidenceId,
          );
        }
      });
    });
  });
}
