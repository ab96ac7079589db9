// POST /v1/evidence/{evidenceId}/attachments over real HTTP, on every database engine with the
// local-disk blob store: idempotency (replays across boundaries and paths, key reuse, keys shared
// with other writes, release on refusal, 20 concurrent retries). Shared setup: test/harness/uploads.ts.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { api, type TestServer } from '../harness/server.ts';
import {
  SECOND,
  HOUR,
  NOW,
  IN_Q1,
  assertNoUncaughtException,
  type Response,
  type Part,
  file,
  field,
  date,
  note,
  rawBody,
  multipartType,
  show,
  newKey,
  payload,
  walkDir,
  type Harness,
  assertCreated,
  assertError,
  assertRefusedCleanly,
  startLocalDiskUploads,
  stopLocalDiskUploads,
  assertStoredOnDisk,
} from '../harness/uploads.ts';

for (const dialect of dialects) {
  describe(`POST /v1/evidence/{evidenceId}/attachments (${dialect}, local disk)`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;
    let clock = NOW;

    before(async () => {
      ({ server, blobDir, h } = await startLocalDiskUploads(dialect, () => clock));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    const assertStored = (evidenceId: string, files: Parameters<typeof assertStoredOnDisk>[3]) =>
      assertStoredOnDisk(h, blobDir, evidenceId, files);

    // ---------------------------------------------------------------- idempotency

    describe('idempotency', () => {
      test('same key, same parts → 201 replay with Idempotent-Replayed: true, same data, one set of attachments', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'alpha'), file('b.csv', 'x,y\n'), note('n')];
        const first = await h.post(evidenceId, parts, { key });
        assertCreated(first, evidenceId, NOW);
        const blobsAfterFirst = await h.blobKeys();
        clock = NOW + 7 * SECOND; // the replay returns the stored modifiedOn, not a new one
        try {
          const second = await h.post(evidenceId, parts, { key });
          assertCreated(second, evidenceId, NOW, 'replay');
          assert.equal(second.headers.get('idempotent-replayed'), 'true');
          assert.notEqual(second.body.meta.requestId, first.body.meta.requestId, 'each response has its own request ID');
        } finally {
          clock = NOW;
        }
        const got = await h.get(evidenceId);
        assert.equal(got.body.data.attachments.length, 2);
        assert.equal(got.body.data.modifiedOn, NOW);
        assert.equal((await h.rows(evidenceId)).length, 2);
        assert.deepEqual(await h.blobKeys(), blobsAfterFirst, 'a replay stores nothing');
        assert.deepEqual(walkDir(blobDir).tmp, []);
      });

      test('the same parts under a different boundary replay (hand-made bodies; and FormData after them)', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', payload(100_000, 11)), note('same')];
        assertCreated(
          await h.post(evidenceId, { raw: rawBody(parts, 'first-boundary'), contentType: multipartType('first-boundary') }, { key }),
          evidenceId,
          NOW,
        );
        const blobs = await h.blobKeys();
        const replay = await h.post(
          evidenceId,
          { raw: rawBody(parts, 'XyZ-other-boundary-0123456789'), contentType: multipartType('XyZ-other-boundary-0123456789') },
          { key },
        );
        assertCreated(replay, evidenceId, NOW, 'different boundary');
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        const viaForm = await h.post(evidenceId, parts, { key });
        assertCreated(viaForm, evidenceId, NOW, 'FormData');
        assert.equal(viaForm.headers.get('idempotent-replayed'), 'true');
        assert.equal((await h.rows(evidenceId)).length, 1);
        assert.deepEqual(await h.blobKeys(), blobs);
      });

      test('the singular and plural paths share a key: a retry on the other spelling replays', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'alias')];
        assertCreated(await h.post(evidenceId, parts, { key, plural: true }), evidenceId, NOW);
        const replay = await h.post(evidenceId, parts, { key });
        assertCreated(replay, evidenceId, NOW);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal((await h.rows(evidenceId)).length, 1);
      });

      test('same key with a different request → 409 idempotency_key_reused, nothing more recorded or stored', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'original content'), note('n')];
        assertCreated(await h.post(evidenceId, parts, { key }), evidenceId, NOW);
        const state = await h.state(evidenceId);
        const otherEvidence = await h.evidence();
        const variants: Array<[string, () => Promise<Response>]> = [
          ['different file content', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'changed content!'), note('n')], { key })],
          ['different file name', () => h.post(evidenceId, [date(IN_Q1), file('b.txt', 'original content'), note('n')], { key })],
          ['different evidenceDate', () => h.post(evidenceId, [date(IN_Q1 + 1), file('a.txt', 'original content'), note('n')], { key })],
          ['different note', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'original content'), note('m')], { key })],
          ['no note', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'original content')], { key })],
          ['an extra file', () => h.post(evidenceId, [...parts, file('c.txt', 'c')], { key })],
          ['another evidence record', () => h.post(otherEvidence, parts, { key })],
        ];
        for (const [label, send] of variants) {
          assertError(await send(), 409, 'idempotency_key_reused', label);
          assert.deepEqual(await h.state(evidenceId), state, label);
        }
        assert.equal((await h.get(otherEvidence)).body.data.status, 'not_uploaded');
        // The original request still replays.
        const replay = await h.post(evidenceId, parts, { key });
        assertCreated(replay, evidenceId, NOW);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      });

      test('a key used by another write (POST /v1/vulnerabilities) is not reused by an upload, nor the reverse', async () => {
        const evidenceId = await h.evidence();
        const vulnKey = newKey();
        const created = await api(server.url, '/v1/vulnerabilities', h.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': vulnKey },
          body: JSON.stringify({ vulnerabilityId: 'VUL-0001', title: 'Shared key', severity: 'low', status: 'open' }),
        });
        assert.equal(created.status, 201, show(created));
        const before = await h.state(evidenceId);
        assertError(await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key: vulnKey }), 409, 'idempotency_key_reused');
        assert.deepEqual(await h.state(evidenceId), before);

        const uploadKey = newKey();
        assertCreated(await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key: uploadKey }), evidenceId, NOW);
        const vuln = await api(server.url, '/v1/vulnerabilities', h.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': uploadKey },
          body: JSON.stringify({ vulnerabilityId: 'VUL-0002', title: 'Shared key', severity: 'low', status: 'open' }),
        });
        assertError(vuln, 409, 'idempotency_key_reused', 'vulnerability after upload');
      });

      test('a refused upload releases its key: the corrected request with the same key → 201 (not a replay)', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const refusals: Array<[Part[], string]> = [
          [[date(IN_Q1), file('a.txt', 'a'), file('b.pdf', 'b')], 'files'],
          [[date(NOW + HOUR), file('a.txt', 'a')], 'evidenceDate'],
          [[date(IN_Q1), file('a.txt', 'a'), field('foo', '1')], 'foo'],
        ];
        for (const [parts, fieldName] of refusals) {
          await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, parts, { key }), fieldName, `refused with key ${key}`);
        }
        const ok = await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key });
        assertCreated(ok, evidenceId, NOW);
        assert.equal(ok.headers.get('idempotent-replayed'), null);
        assert.equal((await h.rows(evidenceId)).length, 1);
        assert.equal((await h.get(evidenceId)).body.data.status, 'uploaded');
      });

      test('a 404 (unknown evidence) does not consume the key', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        assertError(await h.post(randomUUID(), [date(IN_Q1), file('a.txt', 'a')], { key }), 404, 'not_found');
        const ok = await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key });
        assertCreated(ok, evidenceId, NOW);
        assert.equal(ok.headers.get('idempotent-replayed'), null);
      });

      test('20 concurrent identical uploads with one key → one attachment set, one set of blobs; the rest replay or are in progress', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const files = [
          { filename: 'c1.log', content: payload(512 * 1024, 21), type: 'text' },
          { filename: 'c2.json', content: Buffer.from('{"concurrent":true}'), type: 'json' },
        ];
        const parts = [date(IN_Q1), ...files.map((f) => file(f.filename, f.content)), note('race')];
        const blobsBefore = await h.blobKeys();
        const responses = await Promise.all(Array.from({ length: 20 }, () => h.post(evidenceId, parts, { key })));

        const originals = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
        const replays = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
        const inProgress = responses.filter((r) => r.status === 409 && r.body?.error?.code === 'idempotency_request_in_progress');
        assert.equal(originals.length + replays.length + inProgress.length, 20, responses.map(show).join('\n'));
        assert.equal(originals.length, 1, 'exactly one request did the write');
        for (const r of [...originals, ...replays]) assertCreated(r, evidenceId, NOW);
        for (const r of inProgress) assert.equal(r.body.meta.requestId, r.headers.get('x-request-id'));

        const got = await h.get(evidenceId);
        assert.equal(got.body.data.attachments.length, 2, 'one attachment set');
        assert.equal(got.body.data.status, 'uploaded');
        const rows = await assertStored(evidenceId, files);
        const added = (await h.blobKeys()).filter((k) => !blobsBefore.includes(k));
        assert.deepEqual(added, rows.map((r) => r.blobKey).sort(), 'the blobs of exactly one upload');
        assert.deepEqual(walkDir(blobDir).tmp, []);
        assert.equal(await h.pendingCount(), 0);

        // Afterwards every retry replays.
        const late = await h.post(evidenceId, parts, { key });
        assertCreated(late, evidenceId, NOW);
        assert.equal(late.headers.get('idempotent-replayed'), 'true');
      });
    });
  });
}
