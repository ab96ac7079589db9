// Where uploaded files go: the clean-up of abandoned uploads on the local-disk blob store (every
// database engine), and uploads and clean-up against an S3-protocol server (s3rver, child process
// on loopback). Shared setup: test/harness/uploads.ts.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { dialects } from '../harness/engines.ts';
import { startServer, type TestServer } from '../harness/server.ts';
import { runCleanup } from '../../src/domain/maintenance/cleanup.ts';
import { LocalDiskBlobStore } from '../../src/storage/blobs/local-disk.ts';
import { S3BlobStore } from '../../src/storage/blobs/s3.ts';
import type { S3Settings } from '../../src/config.ts';
import { startS3rver } from '../harness/s3rver.ts';
import {
  MiB,
  HOUR,
  NOW,
  IN_Q1,
  Q1_2026,
  env,
  assertNoUncaughtException,
  file,
  date,
  note,
  rawBody,
  multipartType,
  sha256,
  newKey,
  payload,
  walkDir,
  blobFiles,
  collect,
  type Harness,
  makeHarness,
  assertCreated,
  assertError,
  assertRefusedCleanly,
  expectedAttachment,
  byName,
  largePair,
  assertCleanup,
  startLocalDiskUploads,
  stopLocalDiskUploads,
} from '../harness/uploads.ts';

// ==================================================================================================
// Clean-up of abandoned uploads
// ==================================================================================================

for (const dialect of dialects) {
  describe(`clean-up of abandoned uploads (${dialect}, local disk)`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;

    before(async () => {
      ({ server, blobDir, h } = await startLocalDiskUploads(dialect, () => NOW, 'cds-cleanup-blobs-'));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    test('expired pending uploads lose their blobs and row; live ones and completed uploads are kept', async () => {
      const store = new LocalDiskBlobStore(blobDir);
      await assertCleanup(h, store, NOW, () => blobFiles(blobDir));
      // Temporary files: old ones are swept, fresh ones kept.
      const tmpDir = path.join(blobDir, '.tmp');
      fs.mkdirSync(tmpDir, { recursive: true });
      fs.writeFileSync(path.join(tmpDir, 'old-partial'), 'x');
      fs.writeFileSync(path.join(tmpDir, 'fresh-partial'), 'y');
      const old = new Date(Date.now() - 2 * HOUR);
      fs.utimesSync(path.join(tmpDir, 'old-partial'), old, old);
      const result = await runCleanup({ ctx: { db: server.database.db, blobs: store, now: () => NOW }, input: { temporaryAgeMs: HOUR } });
      assert.equal(result.temporaryFiles, 1);
      assert.deepEqual(walkDir(blobDir).tmp, ['.tmp/fresh-partial']);
    });
  });
}
// ====================================================================================================
// S3 (s3rver)
// ====================================================================================================

describe('POST /v1/evidence/{evidenceId}/attachments (sqlite, S3 store against s3rver)', () => {
  const bucket = 'cds-upload-test';
  let s3Dir: string;
  let blobDir: string;
  let s3: { port: number; stop: () => Promise<void> };
  let settings: S3Settings;
  let store: S3BlobStore;
  let sdk: S3Client;
  let server: TestServer;
  let h: Harness;

  before(async () => {
    s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-s3rver-'));
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-unused-'));
    s3 = await startS3rver(s3Dir, bucket);
    const endpoint = `http://127.0.0.1:${s3.port}`;
    settings = { bucket, endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true };
    store = new S3BlobStore(settings);
    sdk = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    server = await startServer({
      dialect: 'sqlite',
      now: () => NOW,
      env: {
        ...env,
        BLOB_DIR: blobDir,
        S3_BUCKET: bucket,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    assert.equal(server.config.s3?.bucket, bucket);
    h = await makeHarness(server, {
      list: () => collect(store.list('uploads/')),
      read: async (key) => {
        const object = await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await object.Body!.transformToByteArray());
      },
      tmp: () => walkDir(blobDir).tmp,
    });
  });
  after(async () => {
    await server?.close();
    await store?.close();
    sdk?.destroy();
    await s3?.stop();
    for (const dir of [s3Dir, blobDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(assertNoUncaughtException);

  async function assertObjects(evidenceId: string, files: Array<{ filename: string; content: Buffer }>) {
    const rows = await h.rows(evidenceId);
    assert.equal(rows.length, files.length);
    const uploadId = rows[0].uploadId;
    for (const [index, f] of files.entries()) {
      const key = `uploads/${h.client.organizationId}/${uploadId}/${index}`;
      const row = rows.find((r) => r.blobKey === key);
      assert.ok(row, `${key} recorded`);
      assert.equal(row.displayName, f.filename);
      assert.equal(row.sha256, sha256(f.content));
      assert.ok((await h.readBlob(key)).equals(f.content), `${key}: the object holds exactly the uploaded bytes`);
    }
    return rows;
  }

  test('success: the files become objects under uploads/<org>/<upload>/<index>, byte for byte; the local blob dir stays unused', async () => {
    const evidenceId = await h.evidence({ approvers: true });
    const files = [
      { filename: 'small.txt', content: Buffer.from('small file') },
      { filename: 'multipart.log', content: payload(6 * MiB + 123, 31) }, // over 5 MiB: a multipart upload
    ];
    const before = await h.blobKeys();
    assertCreated(await h.post(evidenceId, [date(IN_Q1), ...files.map((f) => file(f.filename, f.content)), note('s3')]), evidenceId, NOW);
    const got = await h.get(evidenceId);
    assert.equal(got.body.data.status, 'pending_approval');
    assert.deepEqual(byName(got.body.data.attachments), [
      expectedAttachment('multipart.log', 'text', { note: 's3', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
      expectedAttachment('small.txt', 'text', { note: 's3', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
    ]);
    const rows = await assertObjects(evidenceId, files);
    assert.deepEqual(
      (await h.blobKeys()).filter((k) => !before.includes(k)),
      rows.map((r) => r.blobKey).sort(),
    );
    assert.deepEqual(walkDir(blobDir).entries, [], 'nothing is written to BLOB_DIR when S3 is configured');
  });

  test('a refused file after a stored one leaves no object', async () => {
    const evidenceId = await h.evidence();
    await assertRefusedCleanly(
      h,
      evidenceId,
      () => h.post(evidenceId, [date(IN_Q1), file('ok.txt', payload(256 * 1024, 32)), file('bad.pdf', '%PDF')]),
      'files',
      's3 bad after good',
    );
    await assertRefusedCleanly(
      h,
      evidenceId,
      () => h.post(evidenceId, [file('ok.txt', 'ok'), date(NOW + HOUR)]),
      'evidenceDate',
      's3 future date',
    );
    await assertRefusedCleanly(
      h,
      evidenceId,
      () => h.post(evidenceId, [date(IN_Q1), ...Array.from({ length: 6 }, (_, i) => file(`f${i}.txt`, `s3 ${i}`))]),
      'files',
      's3 six files',
    );
  });

  test('a cut-off body after a stored file leaves no object', async () => {
    const evidenceId = await h.evidence();
    const boundary = 's3-cut-boundary';
    const raw = Buffer.concat([
      rawBody([date(IN_Q1), file('first.txt', payload(64 * 1024, 33))], boundary, { close: false }),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\npartial`),
    ]);
    await assertRefusedCleanly(
      h,
      evidenceId,
      () => h.post(evidenceId, { raw, contentType: multipartType(boundary) }),
      'body',
      's3 cut body',
    );
  });

  test('files totalling 100 MiB + 1 byte → 400 files, no object', async () => {
    const evidenceId = await h.evidence();
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, [date(IN_Q1), ...largePair(1)]), 'files', 's3 100 MiB + 1');
  });

  test('a replay (new boundary) stores no second set of objects', async () => {
    const evidenceId = await h.evidence();
    const key = newKey();
    const parts = [date(IN_Q1), file('r.txt', payload(10_000, 34))];
    assertCreated(await h.post(evidenceId, parts, { key }), evidenceId, NOW);
    const objects = await h.blobKeys();
    const replay = await h.post(
      evidenceId,
      { raw: rawBody(parts, 's3-replay-boundary'), contentType: multipartType('s3-replay-boundary') },
      { key },
    );
    assertCreated(replay, evidenceId, NOW);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assertError(await h.post(evidenceId, [date(IN_Q1), file('r.txt', 'different')], { key }), 409, 'idempotency_key_reused');
    assert.deepEqual(await h.blobKeys(), objects);
    assert.equal((await h.rows(evidenceId)).length, 1);
  });

  test('clean-up removes the objects of expired pending uploads only', async () => {
    await assertCleanup(h, store, NOW, () => collect(store.list('uploads/')));
  });
});
