// The real server process (src/main.ts), on every database engine, survives refused and broken
// uploads (large files, a body cut off inside a file part) and still accepts a valid upload
// afterwards. Shared setup: test/harness/uploads.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken, type Client } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import {
  MiB,
  file,
  date,
  formOf,
  rawBody,
  multipartType,
  show,
  newKey,
  payload,
  walkDir,
  blobFiles,
  assertRefused,
} from '../harness/uploads.ts';

// ====================================================================================================
// The real server process (src/main.ts) survives refused and broken uploads
// ====================================================================================================

for (const dialect of dialects) {
  describe(`the server process keeps running after refused or broken uploads (${dialect})`, () => {
    let database: TestDatabase;
    let blobDir: string;
    let client: Client;
    let evidenceId: string;
    let server: ServerProcess | undefined;

    /** The running server, started again if an earlier case brought it down (that case has failed). */
    async function running(): Promise<ServerProcess> {
      if (server) {
        const answers = await fetch(`${server.url}/v1/evidence`).then(
          () => true,
          () => false,
        );
        if (answers && server.child.exitCode === null && server.child.signalCode === null) return server;
        await server.kill(); // dead already (or dying): wait for the exit
      }
      server = await startServerProcess({ database, store: createTestStore('memory'), env: { BLOB_DIR: blobDir } });
      return server;
    }

    before(async () => {
      database = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-process-blobs-'));
      client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
      evidenceId = await artifactFixtures(database.db, client.organizationId).evidence({
        name: 'Process evidence',
        status: 'not_uploaded',
      });
    });
    after(async () => {
      await server?.stop();
      await database?.drop();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const boundary = 'process-boundary';
    const big = payload(8 * MiB, 40);
    const cases: Array<[label: string, body: () => Buffer, fieldName: string]> = [
      ['a large .pdf as the first part', () => rawBody([file('scan.pdf', big), date(Date.now() - 1000)], boundary), 'files'],
      ['a large file in a part named "file"', () => rawBody([file('a.txt', big, 'file'), date(Date.now() - 1000)], boundary), 'file'],
      [
        'a large .exe after a stored file',
        () => rawBody([date(Date.now() - 1000), file('ok.txt', 'fine'), file('tool.exe', big)], boundary),
        'files',
      ],
      [
        'a body ending inside a file part (no closing boundary)',
        () => rawBody([date(Date.now() - 1000), file('a.txt', 'complete file')], boundary, { close: false }),
        'body',
      ],
    ];
    for (const [label, body, fieldName] of cases) {
      test(`${label}: 400 naming ${fieldName}, the process stays up, no blob left`, async () => {
        const s = await running();
        const token = await getToken(s.url, client);
        const blobsBefore = blobFiles(blobDir);
        const res = await api(s.url, `/v1/evidence/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': newKey(), 'content-type': multipartType(boundary) },
          body: body(),
        });
        assertRefused(res, fieldName, label);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(s.child.exitCode, null, `the server process exited:\n${s.stderr().slice(-2000)}`);
        assert.equal(s.child.signalCode, null);
        const after = await api(s.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
        assert.equal(after.status, 200);
        assert.equal(after.body.data.status, 'not_uploaded');
        assert.deepEqual(blobFiles(blobDir), blobsBefore, 'no blob left');
        assert.deepEqual(walkDir(blobDir).tmp, []);
      });
    }

    test('afterwards a valid upload still works', async () => {
      const s = await running();
      const token = await getToken(s.url, client);
      const blobsBefore = blobFiles(blobDir);
      const res = await api(s.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: formOf([date(Date.now() - 1000), file('ok.txt', 'fine')]),
      });
      assert.equal(res.status, 201, show(res));
      const got = await api(s.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
      assert.deepEqual(
        got.body.data.attachments.map((a: { displayName: string }) => a.displayName),
        ['ok.txt'],
      );
      const keys = (
        await database.db.kysely.selectFrom('attachments').select('blob_key').where('evidence_id', '=', evidenceId).execute()
      ).map((r) => r.blob_key);
      assert.deepEqual(
        blobFiles(blobDir).filter((f) => !blobsBefore.includes(f)),
        keys,
        'the recorded blob is on disk',
      );
    });
  });
}
