// POST /v1/evidence/{evidenceId}/attachments (and its plural alias) over real HTTP, on every
// database engine with the local-disk blob store: what a successful upload records (status,
// period, attachments, note) and stores, byte for byte. Shared setup: test/harness/uploads.ts.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dialects } from '../harness/engines.ts';
import type { TestServer } from '../harness/server.ts';
import { MAX_TOTAL_BYTES } from '../../src/domain/evidence/upload.ts';
import {
  SECOND,
  NOW,
  IN_Q1,
  Q1_2026,
  IN_Q4_2025,
  Q4_2025,
  ZIP_SIGNATURE,
  assertNoUncaughtException,
  file,
  date,
  note,
  rawBody,
  multipartType,
  payload,
  walkDir,
  blobFiles,
  type Harness,
  assertCreated,
  expectedAttachment,
  byName,
  largePair,
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

    // ---------------------------------------------------------------- success

    test('two files, evidenceDate and note → 201; GET lists both with type, note, date and quarter; bytes stored exactly', async () => {
      const evidenceId = await h.evidence();
      const txt = Buffer.from('access review export\nline 2\n');
      const csv = payload(300 * 1024, 1); // spans several chunks
      const before = blobFiles(blobDir);
      const res = await h.post(evidenceId, [date(IN_Q1), file('review.txt', txt), file('users.csv', csv), note('Quarterly access review')]);
      assertCreated(res, evidenceId, NOW);
      assert.equal(res.headers.get('idempotent-replayed'), null, 'an original response is not marked as a replay');

      const got = await h.get(evidenceId);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.status, 'uploaded', 'no approvers → uploaded');
      assert.equal(got.body.data.modifiedOn, res.body.data.modifiedOn);
      const common = { note: 'Quarterly access review', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true };
      assert.deepEqual(byName(got.body.data.attachments), [
        expectedAttachment('review.txt', 'text', common),
        expectedAttachment('users.csv', 'csv', common),
      ]);
      for (const a of got.body.data.attachments) assert.ok(!('url' in a), 'a hosted file never has a url');

      const rows = await assertStored(evidenceId, [
        { filename: 'review.txt', content: txt, type: 'text' },
        { filename: 'users.csv', content: csv, type: 'csv' },
      ]);
      // Exactly these two blobs were added; nothing temporary is left.
      const added = blobFiles(blobDir).filter((f) => !before.includes(f));
      assert.deepEqual(added, rows.map((r) => r.blobKey).sort());
      assert.deepEqual(walkDir(blobDir).tmp, []);
      assert.equal(await h.pendingCount(), 0, 'the journal entry is removed with the recording');
    });

    test('evidence with approvers becomes pending_approval', async () => {
      const evidenceId = await h.evidence({ approvers: true, status: 'needs_revision' });
      const res = await h.post(evidenceId, [file('a.txt', 'x'), date(IN_Q1)]);
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.status, 'pending_approval');
      assert.equal(got.body.data.modifiedOn, NOW);
    });

    test('evidence without approvers in another status (needs_revision) becomes uploaded', async () => {
      const evidenceId = await h.evidence({ status: 'needs_revision' });
      assertCreated(await h.post(evidenceId, [file('a.txt', 'x'), date(IN_Q1)]), evidenceId, NOW);
      assert.equal((await h.get(evidenceId)).body.data.status, 'uploaded');
    });

    const periodCases: Array<[recurrence: string | null, evidenceDate: number, expected: Record<string, unknown>]> = [
      ['quarterly', IN_Q4_2025, { ...Q4_2025, isCurrentPeriod: false }],
      ['monthly', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 1, 1) - 1, isCurrentPeriod: false }],
      ['monthly', Date.UTC(2026, 1, 1), { periodStart: Date.UTC(2026, 1, 1), periodEnd: Date.UTC(2026, 2, 1) - 1, isCurrentPeriod: true }],
      ['semi_annually', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 6, 1) - 1, isCurrentPeriod: true }],
      [
        'semi_annually',
        Date.UTC(2025, 11, 31, 23, 59, 59, 999),
        { periodStart: Date.UTC(2025, 6, 1), periodEnd: Date.UTC(2026, 0, 1) - 1, isCurrentPeriod: false },
      ],
      ['yearly', IN_Q4_2025, { periodStart: Date.UTC(2025, 0, 1), periodEnd: Date.UTC(2026, 0, 1) - 1, isCurrentPeriod: false }],
      ['yearly', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2027, 0, 1) - 1, isCurrentPeriod: true }],
      ['one_time', IN_Q1, { isCurrentPeriod: false }],
      [null, IN_Q1, { isCurrentPeriod: false }],
    ];
    for (const [recurrence, evidenceDate, expected] of periodCases) {
      test(`period follows the recurrence: ${recurrence ?? 'no recurrence'}, evidenceDate ${new Date(evidenceDate).toISOString()}`, async () => {
        const evidenceId = await h.evidence({ recurrence });
        assertCreated(await h.post(evidenceId, [file('p.md', '# p'), date(evidenceDate)]), evidenceId, NOW);
        const got = await h.get(evidenceId);
        assert.deepEqual(got.body.data.attachments, [expectedAttachment('p.md', 'markdown', { evidenceDate, ...expected })]);
        if (!('periodStart' in expected)) {
          assert.ok(!('periodStart' in got.body.data.attachments[0]) && !('periodEnd' in got.body.data.attachments[0]), 'no period keys');
        }
      });
    }

    test('the plural path /v1/evidences/{id}/attachments uploads the same way', async () => {
      const evidenceId = await h.evidence({ approvers: true });
      const content = Buffer.from('{"ok":true}');
      const res = await h.post(evidenceId, [file('result.json', content), date(IN_Q1), note('via plural')], { plural: true });
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.status, 'pending_approval');
      assert.deepEqual(got.body.data.attachments, [
        expectedAttachment('result.json', 'json', { note: 'via plural', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
      ]);
      await assertStored(evidenceId, [{ filename: 'result.json', content, type: 'json' }]);
    });

    test('five files (the maximum) of several families; extensions are case-insensitive', async () => {
      const evidenceId = await h.evidence();
      const files = [
        { filename: 'policy.DOCX', content: payload(2048, 2), type: 'word' },
        { filename: 'screenshot.png', content: payload(4096, 3), type: 'image' },
        { filename: 'config.YAML', content: Buffer.from('a: 1\n'), type: 'yaml' },
        { filename: 'bundle.zip', content: Buffer.concat([ZIP_SIGNATURE, payload(100, 4)]), type: 'archive' },
        { filename: 'mail.eml', content: Buffer.from('Subject: hi\r\n\r\nbody'), type: 'email' },
      ];
      const res = await h.post(evidenceId, [...files.map((f) => file(f.filename, f.content)), date(IN_Q1)]);
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.deepEqual(
        byName(got.body.data.attachments).map((a: any) => [a.displayName, a.type]),
        byName(files.map((f) => ({ displayName: f.filename, type: f.type }))).map((a) => [a.displayName, a.type]),
      );
      await assertStored(evidenceId, files);
    });

    test('.numbers and .pages starting with the zip signature are accepted (type iwork)', async () => {
      const evidenceId = await h.evidence();
      const numbers = Buffer.concat([ZIP_SIGNATURE, payload(70_000, 5)]);
      const pages = Buffer.concat([ZIP_SIGNATURE]); // just the signature
      assertCreated(await h.post(evidenceId, [file('sheet.numbers', numbers), file('doc.pages', pages), date(IN_Q1)]), evidenceId, NOW);
      await assertStored(evidenceId, [
        { filename: 'sheet.numbers', content: numbers, type: 'iwork' },
        { filename: 'doc.pages', content: pages, type: 'iwork' },
      ]);
    });

    test('evidenceDate: now, and up to 60 s ahead of the server clock, are accepted', async () => {
      for (const value of [NOW, NOW + 60 * SECOND, 0]) {
        const evidenceId = await h.evidence();
        assertCreated(await h.post(evidenceId, [file('a.txt', 'a'), date(value)]), evidenceId, NOW, String(value));
        assert.equal((await h.get(evidenceId)).body.data.attachments[0].evidenceDate, value);
      }
    });

    test('a note of exactly 2000 characters (multi-byte) is stored whole; an empty note is no note', async () => {
      const long = 'é'.repeat(2000);
      const evidenceId = await h.evidence();
      assertCreated(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1), note(long)]), evidenceId, NOW);
      assert.equal((await h.get(evidenceId)).body.data.attachments[0].note, long);
      const other = await h.evidence();
      assertCreated(await h.post(other, [file('a.txt', 'a'), date(IN_Q1), note('')]), other, NOW);
      assert.ok(!('note' in (await h.get(other)).body.data.attachments[0]));
    });

    test('a hand-made body (date after the files, paths in the file names) is accepted; the display name is the last segment, the blob stays in the store', async () => {
      const evidenceId = await h.evidence();
      const content = Buffer.from('<a/>');
      const other = Buffer.from('outside?');
      const boundary = 'hand-made-boundary-1';
      const body = rawBody([file('C:\\Users\\me\\export.xml', content), file('../../../outside.txt', other), date(IN_Q1)], boundary);
      const before = blobFiles(blobDir);
      assertCreated(await h.post(evidenceId, { raw: body, contentType: multipartType(boundary) }), evidenceId, NOW);
      assert.deepEqual(
        byName((await h.get(evidenceId)).body.data.attachments).map((a: any) => a.displayName),
        ['export.xml', 'outside.txt'],
      );
      await assertStored(evidenceId, [
        { filename: 'export.xml', content, type: 'xml' },
        { filename: 'outside.txt', content: other, type: 'text' },
      ]);
      const rows = await h.rows(evidenceId);
      assert.deepEqual(
        blobFiles(blobDir).filter((f) => !before.includes(f)),
        rows.map((r) => r.blobKey).sort(),
        'only the two blobs were added',
      );
      for (const up of ['..', '../..', '../../..'])
        assert.equal(fs.existsSync(path.resolve(blobDir, up, 'outside.txt')), false, `nothing written to ${up}/outside.txt`);
    });

    test('files totalling exactly 100 MiB are accepted', async () => {
      const evidenceId = await h.evidence();
      const parts = largePair(0);
      assertCreated(await h.post(evidenceId, [...parts, date(IN_Q1)]), evidenceId, NOW);
      const rows = await h.rows(evidenceId);
      assert.deepEqual(
        rows.map((r) => r.sizeBytes),
        [MAX_TOTAL_BYTES / 2, MAX_TOTAL_BYTES / 2],
      );
      for (const r of rows) assert.equal(fs.statSync(path.join(blobDir, ...r.blobKey.split('/'))).size, MAX_TOTAL_BYTES / 2);
      assert.deepEqual(walkDir(blobDir).tmp, []);
    });

    test('a second upload adds its files next to the first upload\u2019s', async () => {
      const evidenceId = await h.evidence();
      assertCreated(await h.post(evidenceId, [file('one.txt', '1'), date(IN_Q4_2025)]), evidenceId, NOW);
      clock = NOW + 5 * SECOND;
      try {
        assertCreated(await h.post(evidenceId, [file('two.txt', '2'), date(IN_Q1)]), evidenceId, NOW + 5 * SECOND);
      } finally {
        clock = NOW;
      }
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.modifiedOn, NOW + 5 * SECOND);
      assert.deepEqual(
        got.body.data.attachments.map((a: any) => a.displayName),
        ['two.txt', 'one.txt'],
        'newest evidence date first',
      );
      const rows = await h.rows(evidenceId);
      assert.equal(new Set(rows.map((r) => r.uploadId)).size, 2, 'each upload has its own ID and blob prefix');
    });
  });
}
