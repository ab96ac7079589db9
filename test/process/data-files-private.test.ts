// The data a server writes is readable by its own user only: the database and its WAL/SHM files,
// the blob folder and every uploaded file (0600 files, 0700 folders), whatever the umask (the
// usual 022 would make them 0644 and 0755).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';
import { api, getToken } from '../harness/server.ts';

function modes(dir: string): [string, number][] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map((entry) => [entry, fs.statSync(path.join(dir, entry)).mode & 0o777]);
}

describe('data files are private', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-modes-'));
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('after a start and an upload, every file is 0600 and every folder 0700', async () => {
    const dataDir = path.join(root, 'data');
    server = await startServerProcess({ env: { DATA_DIR: dataDir }, demoOnEmpty: true, startTimeoutMs: 50_000 });
    const out = await waitForOutput(server, /Read & Write\s+client_id=\S+\s+client_secret=\S+/);
    const [, clientId, clientSecret] = /Read & Write\s+client_id=(\S+)\s+client_secret=(\S+)/.exec(out)!;
    const token = await getToken(server.url, { clientId, clientSecret });
    const evidenceId = (await api(server.url, '/v1/evidence', token)).body.data[0].evidenceId;
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(Buffer.from('private bytes'))]), 'private.txt');
    form.append('evidenceDate', String(Date.now()));
    const upload = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
      method: 'POST',
      headers: { 'idempotency-key': randomUUID() },
      body: form,
    });
    assert.ok(upload.status >= 200 && upload.status < 300, JSON.stringify(upload.body));

    const found = modes(dataDir);
    for (const name of ['cds.sqlite', 'cds.sqlite-wal', 'cds.sqlite-shm', 'blobs', path.join('blobs', '.tmp')]) {
      assert.ok(
        found.some(([entry]) => entry === name),
        `${name} exists`,
      );
    }
    assert.ok(
      found.some(([entry]) => entry.startsWith(path.join('blobs', 'uploads'))),
      'the upload wrote a blob',
    );
    for (const [entry, mode] of found) {
      const dir = fs.statSync(path.join(dataDir, entry)).isDirectory();
      assert.equal(mode, dir ? 0o700 : 0o600, `${entry} is ${mode.toString(8)}`);
    }
    assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR itself');
  });
});
