// The per-organization attachment storage quota (ATTACHMENT_QUOTA_BYTES) over real HTTP, on every
// database engine with the local-disk blob store: an upload that would take an organization over
// its quota is refused with 400 validation_failed naming `files` and saying the quota, what is used
// and what is left; nothing is recorded and no blob is left; a file that alone exceeds what is left
// is refused while its bytes are still arriving; concurrent uploads of one organization never
// together exceed the quota; other organizations are not affected. On S3 (s3rver), a refused
// upload leaves no object.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { startS3rver } from '../harness/s3rver.ts';
import { S3BlobStore } from '../../src/storage/blobs/s3.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const QUOTA = 1 * MiB;

/** Every regular file under `dir` (relative paths), `.tmp` included. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile())
    .sort();
}

let keySeq = 0;
const newKey = () => `quota-${Date.now().toString(36)}-${++keySeq}`;

for (const dialect of dialects) {
  describe(`attachment storage quota (${dialect}, local disk, ATTACHMENT_QUOTA_BYTES=${QUOTA})`, () => {
    let server: TestServer;
    let blobDir: string;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-quota-blobs-'));
      server = await startServer({ dialect, env: { BLOB_DIR: blobDir, RATE_LIMIT_MAX: '100000', ATTACHMENT_QUOTA_BYTES: String(QUOTA) } });
      assert.equal(server.config.attachmentQuotaBytes, QUOTA);
    });
    after(async () => {
      await server?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    async function organization() {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      const token = await getToken(server.url, client);
      const evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({
        name: 'Quota evidence',
        status: 'not_uploaded',
      });
      return { client, token, evidenceId };
    }

    function upload(token: string, evidenceId: string, files: Array<[name: string, bytes: number]>, key = newKey()) {
      const form = new FormData();
      form.append('evidenceDate', String(Date.now() - 60_000));
      for (const [name, bytes] of files) form.append('files', new Blob([Buffer.alloc(bytes, 'q')]), name);
      return api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: form,
      });
    }

    async function recorded(client: Client) {
      const rows = await server.database.db.kysely
        .selectFrom('attachments')
        .select(['size_bytes'])
        .where('organization_id', '=', client.organizationId)
        .execute();
      return { files: rows.length, bytes: rows.reduce((sum, r) => sum + Number(r.size_bytes), 0) };
    }
    const pending = async () => (await server.database.db.kysely.selectFrom('pending_uploads').select('id').execute()).length;

    function assertQuotaRefusal(res: { status: number; body: any }, used: number) {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.details.length, 1);
      const [detail] = res.body.error.details;
      assert.equal(detail.field, 'files');
      assert.match(
        detail.message,
        new RegExp(`quota is ${QUOTA} bytes \\(1 MiB\\): ${used} bytes are used and ${QUOTA - used} left`),
        detail.message,
      );
    }

    test('an upload that would pass the quota → 400 naming files with the quota, used and left; nothing recorded, no blob left', async () => {
      const { client, token, evidenceId } = await organization();
      assert.equal((await upload(token, evidenceId, [['first.log', 600 * KiB]])).status, 201);
      const blobsBefore = filesUnder(blobDir);

      // Each file fits alone, together they do not: refused when the second file passes what is left.
      const res = await upload(token, evidenceId, [
        ['a.log', 200 * KiB],
        ['b.log', 300 * KiB],
      ]);
      assertQuotaRefusal(res, 600 * KiB);
      assert.deepEqual(await recorded(client), { files: 1, bytes: 600 * KiB });
      assert.deepEqual(filesUnder(blobDir), blobsBefore, 'no blob or temporary file left');
      assert.equal(await pending(), 0);
      const got = await api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
      assert.deepEqual(
        got.body.data.attachments.map((a: { displayName: string }) => a.displayName),
        ['first.log'],
      );

      // Exactly what is left still fits.
      assert.equal((await upload(token, evidenceId, [['rest.log', QUOTA - 600 * KiB]])).status, 201);
      assert.deepEqual(await recorded(client), { files: 2, bytes: QUOTA });
      assertQuotaRefusal(await upload(token, evidenceId, [['one-more.txt', 1]]), QUOTA);
    });

    test('a file alone larger than what is left is refused while it is still arriving', async () => {
      const { client, token, evidenceId } = await organization();
      const boundary = 'quota-boundary';
      const start =
        `--${boundary}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${Date.now() - 60_000}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="huge.log"\r\n\r\n`;
      const announced = 50 * MiB;
      const res = await new Promise<{ status: number; body: any; sent: number }>((resolve, reject) => {
        let sent = 0;
        const request = http.request(`${server.url}/v1/evidence/${evidenceId}/attachments`, {
          method: 'POST',
          agent: false,
          headers: {
            authorization: `Bearer ${token}`,
            'idempotency-key': newKey(),
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(start.length + announced),
          },
        });
        request.on('error', reject);
        request.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
          response.on('end', () => {
            request.destroy();
            resolve({ status: response.statusCode!, body: JSON.parse(text), sent });
          });
        });
        request.write(start);
        // 2 MiB of the announced 50, then nothing more: the answer must come without the rest.
        const chunk = Buffer.alloc(256 * KiB, 'h');
        for (let i = 0; i < 8; i++) {
          request.write(chunk);
          sent += chunk.length;
        }
      });
      assertQuotaRefusal(res, 0);
      assert.ok(res.sent < announced, 'answered before the body was complete');
      assert.deepEqual(await recorded(client), { files: 0, bytes: 0 });
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(filesUnder(path.join(blobDir, '.tmp')), [], 'no temporary file left');
    });

    test('concurrent uploads of one organization: the ones that fit are recorded, the rest refused; never more than the quota', async () => {
      const { client, token, evidenceId } = await organization();
      // Each fits in the empty quota, so all pass the check before streaming; three fit together.
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => upload(token, evidenceId, [[`c${i}.log`, 300 * KiB]])));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 201, 201, 400, 400, 400], JSON.stringify(results.map((r) => r.body)));
      for (const res of results.filter((r) => r.status === 400)) {
        assert.equal(res.body.error.details[0].field, 'files');
        assert.match(res.body.error.details[0].message, /attachment storage quota is 1048576 bytes/);
      }
      assert.deepEqual(await recorded(client), { files: 3, bytes: 900 * KiB });
      const keys = filesUnder(blobDir).filter((f) => f.startsWith(`uploads/${client.organizationId}/`));
      assert.equal(keys.length, 3, 'only the recorded files keep a blob');
      assert.equal(await pending(), 0);
    });

    test('another organization has its own quota', async () => {
      const full = await organization();
      assert.equal((await upload(full.token, full.evidenceId, [['full.log', QUOTA]])).status, 201);
      assertQuotaRefusal(await upload(full.token, full.evidenceId, [['over.log', 1]]), QUOTA);
      const other = await organization();
      assert.equal((await upload(other.token, other.evidenceId, [['mine.log', 700 * KiB]])).status, 201);
    });
  });
}

describe(`attachment storage quota (sqlite, S3 via s3rver, ATTACHMENT_QUOTA_BYTES=${6 * MiB})`, () => {
  const bucket = 'quota-bucket';
  let s3Dir: string;
  let s3: { port: number; stop: () => Promise<void> };
  let objects: S3BlobStore;
  let server: TestServer;

  before(async () => {
    s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-quota-s3-'));
    s3 = await startS3rver(s3Dir, bucket);
    const settings = {
      bucket,
      endpoint: `http://127.0.0.1:${s3.port}`,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    };
    objects = new S3BlobStore(settings);
    server = await startServer({
      dialect: 'sqlite',
      env: {
        RATE_LIMIT_MAX: '100000',
        ATTACHMENT_QUOTA_BYTES: String(6 * MiB),
        S3_BUCKET: bucket,
        S3_ENDPOINT: settings.endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
  });
  after(async () => {
    await server?.close();
    await objects?.close();
    await s3?.stop();
    if (s3Dir) fs.rmSync(s3Dir, { recursive: true, force: true });
  });

  async function keys(): Promise<string[]> {
    const out: string[] = [];
    for await (const key of objects.list('uploads/')) out.push(key);
    return out.sort();
  }

  test('refused uploads (a file over what is left, a second file that no longer fits) leave no object', async () => {
    const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
    const token = await getToken(server.url, client);
    const evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({
      name: 'S3 quota',
      status: 'not_uploaded',
    });
    const send = (files: Array<[string, number]>) => {
      const form = new FormData();
      form.append('evidenceDate', String(Date.now() - 60_000));
      for (const [name, bytes] of files) form.append('files', new Blob([Buffer.alloc(bytes, 's')]), name);
      return api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: form,
      });
    };
    assert.equal((await send([['first.log', 1 * MiB]])).status, 201);
    const before = await keys();
    assert.equal(before.length, 1);
    // Over one S3 part: the multipart upload begun for it is aborted when the file passes what is left.
    const tooBig = await send([['big.log', 7 * MiB]]);
    assert.equal(tooBig.status, 400, JSON.stringify(tooBig.body));
    assert.match(
      tooBig.body.error.details[0].message,
      new RegExp(`quota is ${6 * MiB} bytes \\(6 MiB\\): ${MiB} bytes are used and ${5 * MiB} left`),
    );
    // The first file is stored before the second passes what is left.
    const second = await send([
      ['a.log', 3 * MiB],
      ['b.log', 3 * MiB],
    ]);
    assert.equal(second.status, 400, JSON.stringify(second.body));
    assert.equal(second.body.error.details[0].field, 'files');
    assert.deepEqual(await keys(), before, 'no object of a refused upload is left');
  });
});
