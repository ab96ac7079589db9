// Uploads do not make the server collect its whole heap: the real server process (src/main.ts)
// takes two uploads of 100 MiB while its /metrics (the operations listener) counts the garbage
// collections by kind. The body's chunks are Buffers Node allocates outside the JavaScript heap;
// left to V8 they pile up until it marks the whole heap, three to four times per 100 MiB, which
// was most of an upload's CPU (docs/decisions/performance.md, "Uploads: where the garbage came from").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { MiB, blobFiles, walkDir } from '../harness/uploads.ts';

const BOUNDARY = 'garbage-boundary-3c9e';
const FILES = 5;
const FILE_BYTES = 20 * MiB;

/** One upload of FILES files of FILE_BYTES each, generated while sent (never held whole): status and body. */
function upload(url: string, evidenceId: string, token: string, key: string): Promise<{ status: number; body: string }> {
  const chunk = Buffer.alloc(256 * 1024, 'g');
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/evidence/${evidenceId}/attachments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'idempotency-key': key,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'transfer-encoding': 'chunked',
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    (async () => {
      const write = (data: string | Buffer) =>
        req.write(data) ? Promise.resolve() : new Promise<void>((r) => req.once('drain', () => r()));
      await write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${Date.now() - 60_000}\r\n`);
      for (let f = 0; f < FILES; f++) {
        await write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="part-${f}.log"\r\n\r\n`);
        for (let sent = 0; sent < FILE_BYTES; sent += chunk.length)
          await write(chunk.subarray(0, Math.min(chunk.length, FILE_BYTES - sent)));
        await write('\r\n');
      }
      req.end(`--${BOUNDARY}--\r\n`);
    })().catch(reject);
  });
}

/** The server's garbage collections so far by kind, from /metrics (a kind not seen yet is not listed there: 0). */
async function collections(opsUrl: string): Promise<Record<'major' | 'minor' | 'incremental' | 'weakcb', number>> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m, 'the server reports its garbage collections');
  const counts = { major: 0, minor: 0, incremental: 0, weakcb: 0 };
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_count\{kind="(\w+)"\} (\d+)$/gm))
    counts[match[1] as keyof typeof counts] = Number(match[2]);
  return counts;
}

describe('uploads and garbage collection (the server process, SQLite)', () => {
  let database: TestDatabase;
  let blobDir: string;
  let server: ServerProcess;

  before(async () => {
    database = await createTestDatabase('sqlite');
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-garbage-blobs-'));
    server = await startServerProcess({ database, store: createTestStore('memory'), env: { BLOB_DIR: blobDir, RATE_LIMIT_MAX: '100000' } });
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
    if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
  });

  test('two uploads of 100 MiB cost at most one full collection of the heap, and every byte is stored', async () => {
    assert.ok(server.opsUrl, 'the server logs its operations listener');
    const client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
    const evidenceId = await artifactFixtures(database.db, client.organizationId).evidence({ name: 'Large files', status: 'not_uploaded' });
    const token = await getToken(server.url, client);
    const before = await collections(server.opsUrl);
    for (const key of ['garbage-1', 'garbage-2']) {
      const res = await upload(server.url, evidenceId, token, key);
      assert.equal(res.status, 201, res.body);
    }
    const afterUploads = await collections(server.opsUrl);
    // Left to V8, 200 MiB of body chunks cost six to eight full collections; one may still come
    // from elsewhere (V8's memory reducer after start-up, the heap's own growth).
    assert.ok(
      afterUploads.major - before.major <= 1,
      `full collections during the uploads: ${afterUploads.major - before.major} (before ${JSON.stringify(before)}, after ${JSON.stringify(afterUploads)})`,
    );
    const got = await api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
    assert.equal(got.status, 200);
    assert.equal(got.body.data.attachments.length, 2 * FILES);
    assert.deepEqual(
      blobFiles(blobDir).map((f) => fs.statSync(path.join(blobDir, f)).size),
      Array(2 * FILES).fill(FILE_BYTES),
      'every file is stored whole',
    );
    assert.deepEqual(walkDir(blobDir).tmp, []);
  });
});
