// Uploads the client abandons mid-file, or that the server's request time-out cuts off, against the
// real server process (src/main.ts) on every database engine, with the local-disk store and with
// S3 (s3rver): the server closes every file it opened for them (/proc/<pid>/fd), keeps no temporary
// file, blob or object, aborts the S3 multipart uploads it had begun, removes the journal row and
// releases the Idempotency-Key within seconds, so a retry with the same key succeeds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken, type Client } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { startS3rver } from '../harness/s3rver.ts';
import { S3BlobStore } from '../../src/storage/blobs/s3.ts';

const MiB = 1024 * 1024;
const BOUNDARY = 'abort-test-boundary';
/** short, so the trickled upload is cut within the test's patience */
const REQUEST_TIMEOUT_MS = 3000;

const head = (evidenceDate: number, filename: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${evidenceDate}\r\n` +
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
const tail = `\r\n--${BOUNDARY}--\r\n`;

/** Every regular file under `dir` (relative paths), `.tmp` included. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile())
    .sort();
}

/**
 * A pass-through HTTP proxy in front of s3rver that notes each request's method and path: s3rver
 * implements neither ListMultipartUploads nor AbortMultipartUpload (it answers 405), so the
 * requests the server sends are what shows that it aborts the multipart uploads it began.
 */
async function startRecordingProxy(targetPort: number) {
  const requests: string[] = [];
  const proxy = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    // A connection of its own per request: a kept-alive one s3rver is closing could be picked up.
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: request.method, path: request.url, headers: request.headers, agent: false },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as net.AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve()).closeAllConnections()),
  };
}

/** Files (not sockets or pipes: pooled connections come and go on their own) the process has open. */
function openFiles(pid: number): number {
  const dir = `/proc/${pid}/fd`;
  let files = 0;
  for (const fd of fs.readdirSync(dir)) {
    let target = '';
    try {
      target = fs.readlinkSync(path.join(dir, fd));
    } catch {
      continue; // closed while listed
    }
    if (target.startsWith('/')) files++;
  }
  return files;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => unknown = () => '') {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what} ${JSON.stringify(await describe())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const dialect of dialects) {
  for (const blobStore of ['local', 's3'] as const) {
    describe(`uploads cut off mid-file (${dialect}, ${blobStore === 'local' ? 'local disk' : 'S3 via s3rver'})`, () => {
      let database: TestDatabase;
      let blobDir: string;
      let s3Dir: string;
      let s3: { port: number; stop: () => Promise<void> } | undefined;
      let recorder: Awaited<ReturnType<typeof startRecordingProxy>> | undefined;
      let objects: S3BlobStore | undefined;
      let client: Client;
      let evidenceId: string;
      let server: ServerProcess;
      let token: string;
      // Over one S3 part (5 MiB), so the S3 store has begun a multipart upload when the cut comes.
      const fileBytes = blobStore === 's3' ? 12 * MiB : 5 * MiB;
      const cutAt = blobStore === 's3' ? 7 * MiB : 2.5 * MiB;

      before(async () => {
        database = await createTestDatabase(dialect);
        blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-abort-blobs-'));
        s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-abort-s3-'));
        const env: Record<string, string> = { BLOB_DIR: blobDir, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), RATE_LIMIT_MAX: '100000' };
        if (blobStore === 's3') {
          s3 = await startS3rver(s3Dir, 'abort-bucket');
          recorder = await startRecordingProxy(s3.port);
          const settings = {
            bucket: 'abort-bucket',
            endpoint: `http://127.0.0.1:${recorder.port}`,
            region: 'us-east-1',
            accessKeyId: 'S3RVER',
            secretAccessKey: 'S3RVER',
            forcePathStyle: true,
          };
          objects = new S3BlobStore(settings);
          Object.assign(env, {
            S3_BUCKET: settings.bucket,
            S3_ENDPOINT: settings.endpoint,
            S3_ACCESS_KEY_ID: 'S3RVER',
            S3_SECRET_ACCESS_KEY: 'S3RVER',
            S3_FORCE_PATH_STYLE: 'true',
          });
        }
        client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
        evidenceId = await artifactFixtures(database.db, client.organizationId).evidence({
          name: 'Abort evidence',
          status: 'not_uploaded',
        });
        server = await startServerProcess({ database, store: createTestStore('memory'), env });
        token = await getToken(server.url, client);
      });
      after(async () => {
        await server?.stop();
        await objects?.close();
        await recorder?.close();
        await s3?.stop();
        await database?.drop();
        for (const dir of [blobDir, s3Dir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
      });

      /** Blobs of uploads in the store (files under BLOB_DIR, `.tmp` included; or objects). */
      async function stored(): Promise<string[]> {
        const local = filesUnder(blobDir);
        if (!objects) return local;
        const keys: string[] = [];
        for await (const key of objects.list('uploads/')) keys.push(key);
        return [...local, ...keys];
      }

      const journal = async () => (await database.db.kysely.selectFrom('pending_uploads').select('id').execute()).length;
      const claims = async (keys: string[]) =>
        (
          await database.db.kysely
            .selectFrom('idempotency_records')
            .select('idempotency_key')
            .where('idempotency_key', 'in', keys)
            .execute()
        ).length;

      function upload(key: string, parts: FormData) {
        return api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: parts,
          signal: AbortSignal.timeout(15_000), // a hung server fails the test instead of stalling the suite
        });
      }
      const form = (content: string) => {
        const f = new FormData();
        f.append('evidenceDate', String(Date.now() - 60_000));
        f.append('files', new Blob([content]), 'retry.txt');
        return f;
      };

      /** Sends the head of an upload and `cutAt` bytes of its file on a connection of its own, then destroys it. */
      function cutUpload(key: string): Promise<void> {
        return new Promise((resolve) => {
          const start = head(Date.now() - 60_000, 'cut.log');
          const request = http.request(`${server.url}/v1/evidence/${evidenceId}/attachments`, {
            method: 'POST',
            agent: false,
            headers: {
              authorization: `Bearer ${token}`,
              'idempotency-key': key,
              'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
              'content-length': String(start.length + fileBytes + tail.length),
            },
          });
          request.on('error', () => {});
          request.write(start);
          // Let the server take in what was sent (and, on S3, begin the multipart upload) before the cut.
          request.write(Buffer.alloc(cutAt, 'c'), () =>
            setTimeout(() => {
              request.destroy();
              resolve();
            }, 500),
          );
        });
      }

      test('connections destroyed mid-file: open files back to the baseline, no blob or temporary file, journal empty, the key free again', async () => {
        // A first upload opens what the server keeps open anyway (database and S3 connections).
        assert.equal((await upload(`warm-${blobStore}`, form('warm'))).status, 201);
        const blobsBefore = await stored();
        const baseline = openFiles(server.child.pid!);
        const keys = Array.from({ length: 5 }, (_, i) => `cut-${blobStore}-${i}`);
        for (const key of keys) await cutUpload(key);

        await until(
          'the server to close the files of the cut uploads',
          () => openFiles(server.child.pid!) <= baseline,
          5000,
          () => ({
            baseline,
            now: openFiles(server.child.pid!),
          }),
        );
        await until(
          'the blobs and temporary files of the cut uploads to go',
          async () => (await stored()).length === blobsBefore.length,
          5000,
          stored,
        );
        assert.deepEqual(await stored(), blobsBefore);
        await until('the journal rows to go', async () => (await journal()) === 0, 5000, journal);
        await until(
          'the keys to be released',
          async () => (await claims(keys)) === 0,
          5000,
          () => claims(keys),
        );
        assert.equal(server.child.exitCode, null, 'the server process is still running');
        if (recorder) {
          // Each cut file had begun a multipart upload (CreateMultipartUpload: POST ?uploads); each is aborted.
          const begun = recorder.requests.filter((r) => r.startsWith('POST ') && /\?uploads(=|&|$)/.test(r));
          assert.equal(begun.length, keys.length, `one multipart upload per cut file: ${recorder.requests.join('\n')}`);
          await until(
            'an AbortMultipartUpload (DELETE ?uploadId=) for each',
            () => recorder!.requests.filter((r) => r.startsWith('DELETE ') && r.includes('uploadId=')).length === begun.length,
            5000,
            () => recorder!.requests,
          );
        }

        // The same key right away: accepted and recorded, not 409 idempotency_request_in_progress.
        const retry = await upload(keys[0], form('retried after a cut'));
        assert.equal(retry.status, 201, JSON.stringify(retry.body));
        assert.equal((await stored()).length, blobsBefore.length + 1);
      });

      test('connections closed right after the headers, while the server is still claiming the key: journal empty, keys free again', async () => {
        const blobsBefore = await stored();
        const keys: string[] = [];
        // Closed a few milliseconds after the request: while the key is claimed and the journal row
        // written, before the parts are read (the window is widest on PostgreSQL).
        for (const delay of [0, 1, 2, 4, 8, 15]) {
          for (let i = 0; i < 4; i++) {
            const key = `early-${blobStore}-${delay}-${i}`;
            keys.push(key);
            const socket = net.connect(server.port, '127.0.0.1');
            socket.on('error', () => {});
            socket.write(
              `POST /v1/evidence/${evidenceId}/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
                `Idempotency-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 1000000\r\n\r\n` +
                head(Date.now() - 60_000, 'early.log') +
                'early bytes',
            );
            await new Promise((r) => setTimeout(r, delay));
            socket.destroy();
          }
        }
        await until('the journal rows to go', async () => (await journal()) === 0, 5000, journal);
        await until(
          'the keys to be released',
          async () => (await claims(keys)) === 0,
          5000,
          () => claims(keys),
        );
        await until('their blobs and temporary files to go', async () => (await stored()).length === blobsBefore.length, 5000, stored);
        const retry = await upload(keys[0], form('retried after an early close'));
        assert.equal(retry.status, 201, JSON.stringify(retry.body));
      });

      const slowClients: Array<[label: string, key: string, trickle: boolean]> = [
        [`a body trickled slower than REQUEST_TIMEOUT_MS (${REQUEST_TIMEOUT_MS} ms, a byte every 200 ms)`, 'slow', true],
        ['a body that stops arriving (the connection idle for REQUEST_TIMEOUT_MS)', 'stalled', false],
      ];
      for (const [label, keyName, trickle] of slowClients) {
        test(`${label} is cut at about that time, and leaves nothing behind`, async () => {
          const key = `${keyName}-${blobStore}`;
          const blobsBefore = await stored();
          const baseline = openFiles(server.child.pid!);
          const socket = net.connect(server.port, '127.0.0.1');
          socket.on('error', () => {});
          const start = Date.now();
          socket.write(
            `POST /v1/evidence/${evidenceId}/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
              `Idempotency-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000000\r\n\r\n` +
              head(Date.now() - 60_000, 'slow.log') +
              'x'.repeat(64 * 1024),
          );
          // Trickled, the connection is never idle, only slow: the request time-out must cut it.
          const timer = trickle ? setInterval(() => socket.destroyed || socket.write('y'), 200) : undefined;
          // Read what the server sends, as any client does: a server that has read every byte it was
          // sent closes with a FIN (after its 408), which a client that never reads would never see.
          socket.on('data', () => {});
          const closedAfter = await new Promise<number>((resolve) => {
            socket.on('end', () => resolve(Date.now() - start));
            socket.on('close', () => resolve(Date.now() - start));
            setTimeout(() => resolve(Infinity), REQUEST_TIMEOUT_MS + 15_000).unref();
          });
          socket.destroy();
          clearInterval(timer);
          assert.ok(closedAfter >= REQUEST_TIMEOUT_MS - 100, `not cut before the time-out (${closedAfter} ms)`);
          assert.ok(closedAfter < REQUEST_TIMEOUT_MS + 2500, `cut ${closedAfter} ms after the start, not about ${REQUEST_TIMEOUT_MS} ms`);

          await until(
            'the server to close the files of the slow upload',
            () => openFiles(server.child.pid!) <= baseline,
            5000,
            () => ({
              baseline,
              now: openFiles(server.child.pid!),
            }),
          );
          await until('its temporary file to go', async () => (await stored()).length === blobsBefore.length, 5000, stored);
          await until('its journal row to go', async () => (await journal()) === 0, 5000, journal);
          await until('its key to be released', async () => (await claims([key])) === 0, 5000);
          const retry = await upload(key, form('sent in time'));
          assert.equal(retry.status, 201, JSON.stringify(retry.body));
        });
      }
    });
  }
}
