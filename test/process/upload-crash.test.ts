// A server process killed (SIGKILL) in the middle of an attachment upload: no attachment is
// recorded, the blobs it had written are orphans known only to the pending-uploads journal, and
// once the write lease is over the restarted server's clean-up removes them; a retry with the same
// Idempotency-Key then succeeds. Runs on every database engine with the local-disk blob store.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken, type Client } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';

const BOUNDARY = 'crash-test-boundary';
const FILE_BYTES = 256 * 1024;

function filePart(name: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`;
}
const datePart = (date: number) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${date}\r\n`;

/** Every regular file under `dir` (relative paths), `.tmp` included. */
function filesUnder(dir: string): string[] {
  // The clean-up may delete entries while they are listed: a vanished entry is simply not there,
  // and a listing cut short by a vanished folder is taken again.
  for (;;) {
    if (!fs.existsSync(dir)) return [];
    try {
      return (fs.readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile())
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const dialect of dialects) {
  describe(`upload interrupted by SIGKILL (${dialect})`, () => {
    let database: TestDatabase;
    let blobDir: string;
    let client: Client;
    let evidenceId: string;
    let server: ServerProcess | undefined;
    const env = () => ({
      BLOB_DIR: blobDir,
      // Short lease and frequent clean-up so the test does not wait minutes.
      WRITE_LEASE_MS: '2000',
      CLEANUP_INTERVAL_MS: '300',
    });

    before(async () => {
      database = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-crash-blobs-'));
      client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
      evidenceId = await artifactFixtures(database.db, client.organizationId).evidence({ name: 'Crash evidence', status: 'not_uploaded' });
    });

    after(async () => {
      await server?.kill();
      await database?.drop();
      fs.rmSync(blobDir, { recursive: true, force: true });
    });

    it('leaves no attachment, its blobs are cleaned up after restart, and a retry with the same key succeeds', async () => {
      server = await startServerProcess({ database, store: createTestStore('memory'), env: env() });
      const token = await getToken(server.url, client);
      const evidenceDate = Date.now() - 60_000;

      // Stream by hand: the first file whole, then half of the second, then kill the server.
      const request = http.request(`${server.url}/v1/evidence/${evidenceId}/attachments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': 'crash-key-1',
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'transfer-encoding': 'chunked',
        },
      });
      request.on('error', () => {}); // the connection dies with the server
      request.write(datePart(evidenceDate));
      request.write(filePart('first.txt'));
      request.write(Buffer.alloc(FILE_BYTES, 'a'));
      request.write(`\r\n${filePart('second.txt')}`);
      request.write(Buffer.alloc(FILE_BYTES / 2, 'b'));

      // The first file is a published blob once the second part has begun.
      await until('the first blob to be written', () => filesUnder(blobDir).some((f) => f.startsWith('uploads/') && f.endsWith('/0')));
      await server.kill();
      request.destroy();

      const orphans = filesUnder(blobDir).filter((f) => f.startsWith('uploads/'));
      assert.equal(orphans.length, 1, `one published blob before the crash: ${orphans}`);
      const k = database.db.kysely;
      const attachments = await k.selectFrom('attachments').select('id').where('evidence_id', '=', evidenceId).execute();
      assert.equal(attachments.length, 0, 'no attachment is recorded');
      const pending = await k.selectFrom('pending_uploads').selectAll().where('evidence_id', '=', evidenceId).execute();
      assert.equal(pending.length, 1, 'the journal knows the interrupted upload');
      const evidence = await k.selectFrom('evidence').select('status').where('id', '=', evidenceId).executeTakeFirstOrThrow();
      assert.equal(evidence.status, 'not_uploaded');

      // Restart: once the lease is over, the clean-up removes the orphan blob and the journal row
      // (and the temporary file of the interrupted second file).
      server = await startServerProcess({ database, store: createTestStore('memory'), env: env() });
      await until('the clean-up to remove every blob', () => filesUnder(blobDir).length === 0);
      await until('the journal row to go', async () => (await k.selectFrom('pending_uploads').select('id').execute()).length === 0);

      // The same key works again: its abandoned claim expired with the lease.
      const token2 = await getToken(server.url, client);
      const form = new FormData();
      form.append('evidenceDate', String(evidenceDate));
      form.append('files', new Blob([Buffer.alloc(FILE_BYTES, 'a')]), 'first.txt');
      form.append('files', new Blob([Buffer.alloc(FILE_BYTES, 'b')]), 'second.txt');
      const retry = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token2, {
        method: 'POST',
        headers: { 'idempotency-key': 'crash-key-1' },
        body: form,
      });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      const listed = await api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, token2);
      assert.deepEqual(listed.body.data.attachments.map((a: { displayName: string }) => a.displayName).sort(), ['first.txt', 'second.txt']);
      assert.equal(filesUnder(blobDir).filter((f) => f.startsWith('uploads/')).length, 2);
    });
  });
}
