// `cds backup` while a real server takes writes, then `cds restore` into another data folder and a
// server there: every write acknowledged before the backup started is served by the restored
// deployment (vulnerabilities, and uploaded attachments with their bytes), a cursor issued before
// the backup still works (the generated cursor key came along), and every blob the restored
// database refers to is there. Then the refusals: an occupied data folder, a tampered checksum, a
// truncated archive, a file that is not an archive; none of them leaves anything behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { runCli, startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';
import { api, getToken } from '../harness/server.ts';
import { createTestDatabase, dialects } from '../harness/engines.ts';
import { openDb } from '../../src/storage/db/connect.ts';
import { listHostedBlobs } from '../../src/storage/db/repositories/artifacts/hosted-blobs.ts';

const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');
const limits = { RATE_LIMIT_MAX: '1000000', UNAUTHENTICATED_RATE_LIMIT_MAX: '1000000', TOKEN_RATE_LIMIT_MAX: '1000' };

interface Ack {
  kind: 'vulnerability' | 'upload';
  id: string;
  /** the upload's bytes */
  content?: Buffer;
  ackedAt: number;
}

describe('cds backup while the server writes, cds restore elsewhere (SQLite)', () => {
  let root: string;
  let source: ServerProcess | undefined;
  let restored: ServerProcess | undefined;
  const dataA = () => path.join(root, 'a');
  const dataB = () => path.join(root, 'b');
  const archive = () => path.join(root, 'backups', 'cds.tar.gz');
  const envOf = (dir: string) => ({ DATA_DIR: dir, ...limits });
  let client: { clientId: string; clientSecret: string };
  let evidenceId: string;
  const acks: Ack[] = [];
  let backupStartedAt = 0;
  let cursor: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-backup-'));
  });
  after(async () => {
    await source?.kill();
    await restored?.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('takes a backup while vulnerabilities and attachments are being written', async (t) => {
    source = await startServerProcess({ env: envOf(dataA()), demoOnEmpty: true, startTimeoutMs: 50_000 });
    const out = await waitForOutput(source, /Read & Write\s+client_id=\S+\s+client_secret=\S+/);
    const match = /Read & Write\s+client_id=(\S+)\s+client_secret=(\S+)/.exec(out)!;
    client = { clientId: match[1], clientSecret: match[2] };
    const token = await getToken(source.url, client);
    const evidence = await api(source.url, '/v1/evidence', token);
    assert.equal(evidence.status, 200, JSON.stringify(evidence.body));
    evidenceId = evidence.body.data[0].evidenceId;

    let writing = true;
    const writer = async (lane: number) => {
      for (let n = 0; writing; n++) {
        const at = Date.now();
        if (n % 4 === 3) {
          const content = Buffer.from(`evidence ${lane}-${n} ${randomUUID()}\n`.repeat(200));
          const form = new FormData();
          form.append('files', new Blob([new Uint8Array(content)]), `backup-${lane}-${n}.txt`);
          form.append('evidenceDate', String(at));
          const res = await api(source!.url, `/v1/evidence/${evidenceId}/attachments`, token, {
            method: 'POST',
            headers: { 'idempotency-key': randomUUID() },
            body: form,
          });
          if (res.status >= 200 && res.status < 300)
            acks.push({ kind: 'upload', id: `backup-${lane}-${n}.txt`, content, ackedAt: Date.now() });
        } else {
          const id = `VUL-BACKUP-${lane}-${n}`;
          const res = await api(source!.url, '/v1/vulnerabilities', token, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body: JSON.stringify({ vulnerabilityId: id, title: `Backup ${lane}-${n}`, severity: 'low', status: 'open' }),
          });
          if (res.status === 201) acks.push({ kind: 'vulnerability', id, ackedAt: Date.now() });
        }
      }
    };
    const writers = [writer(1), writer(2)];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const page = await api(source.url, '/v1/vulnerabilities?count=50', token);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    cursor = page.body.meta.nextCursor;
    assert.ok(cursor, 'more than one page of vulnerabilities');
    backupStartedAt = Date.now();
    const backup = await runCli(['backup', archive()], envOf(dataA()), { timeoutMs: 60_000 });
    const acksDuringBackup = acks.filter((a) => a.ackedAt > backupStartedAt).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    writing = false;
    await Promise.all(writers);

    assert.equal(backup.code, 0, backup.stderr);
    t.diagnostic(
      `${acks.filter((a) => a.ackedAt < backupStartedAt).length} writes acknowledged before the backup, ${acksDuringBackup} while it ran`,
    );
    assert.match(backup.stdout, /Backup written to .*cds\.tar\.gz/);
    assert.ok(
      acks.filter((a) => a.ackedAt < backupStartedAt && a.kind === 'upload').length >= 3,
      'uploads were acknowledged before the backup',
    );
    assert.ok(acksDuringBackup > 0, 'the server kept acknowledging writes while the backup ran');
    assert.equal(fs.statSync(archive()).mode & 0o777, 0o600, 'the archive is readable only by its owner');
    assert.deepEqual(fs.readdirSync(path.dirname(archive())), ['cds.tar.gz'], 'no temporary file is left beside the archive');
    await source.stop();
    source = undefined;
  });

  it('restores into an empty data folder, and the restored server serves every acknowledged write', async () => {
    const restore = await runCli(['restore', archive()], envOf(dataB()));
    assert.equal(restore.code, 0, restore.stderr);
    restored = await startServerProcess({ env: envOf(dataB()) });
    const token = await getToken(restored.url, client); // the credential came along
    const before = acks.filter((a) => a.ackedAt < backupStartedAt);
    for (const ack of before.filter((a) => a.kind === 'vulnerability')) {
      const res = await api(restored.url, `/v1/vulnerabilities/${ack.id}`, token);
      assert.equal(res.status, 200, `${ack.id} acknowledged before the backup: ${JSON.stringify(res.body)}`);
    }
    const evidence = await api(restored.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
    assert.equal(evidence.status, 200, JSON.stringify(evidence.body));
    const names = new Set(evidence.body.data.attachments.map((a: { displayName: string }) => a.displayName));
    for (const ack of before.filter((a) => a.kind === 'upload'))
      assert.ok(names.has(ack.id), `attachment ${ack.id} acknowledged before the backup`);

    // a cursor the first deployment issued: its generated signing key was restored with the data
    const next = await api(restored.url, `/v1/vulnerabilities?count=50&nextCursor=${encodeURIComponent(cursor)}`, token);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    await restored.stop();
    restored = undefined;

    // every blob the restored database refers to is there, with the bytes that were uploaded
    const db = openDb({ sqlitePath: path.join(dataB(), 'cds.sqlite') });
    const hosted = await listHostedBlobs(db.kysely).finally(() => db.close());
    const uploaded = new Set(acks.filter((a) => a.kind === 'upload').map((a) => sha256(a.content!)));
    for (const ack of before.filter((a) => a.kind === 'upload')) assert.ok(hosted.some((b) => b.sha256 === sha256(ack.content!)));
    for (const blob of hosted) {
      const bytes = fs.readFileSync(path.join(dataB(), 'blobs', ...blob.key.split('/')));
      assert.equal(sha256(bytes), blob.sha256, `blob ${blob.key}`);
      if (blob.key.startsWith('uploads/')) assert.ok(uploaded.has(blob.sha256), `blob ${blob.key} is one of the uploads`);
    }
  });

  it('refuses to restore over an existing deployment unless --force', async () => {
    const database = path.join(dataB(), 'cds.sqlite');
    const before = sha256(fs.readFileSync(database));
    const refused = await runCli(['restore', archive()], envOf(dataB()));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /already holds a deployment.*--force/);
    assert.equal(sha256(fs.readFileSync(database)), before, 'the deployment in place is untouched');

    // not while a server is using it, even with --force
    const inode = fs.statSync(database).ino;
    restored = await startServerProcess({ env: envOf(dataB()) });
    const running = await runCli(['restore', archive(), '--force'], envOf(dataB()));
    assert.equal(running.code, 1);
    assert.match(running.stderr, /A server is running on .*stop every server/);
    assert.equal(fs.statSync(database).ino, inode, 'the database in use was not replaced');
    await restored.stop();
    restored = undefined;

    const forced = await runCli(['restore', archive(), '--force'], envOf(dataB()));
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /replacing the deployment/);
  });

  it('refuses a tampered, truncated or foreign archive, leaving the target folder empty', async () => {
    const original = fs.readFileSync(archive());
    const tar = gunzipSync(original);
    const manifestText = /\{"format":"cds-backup".*?\}\]?\}/s.exec(tar.toString('latin1'))![0];
    const databaseSha = /"database":\{"size":\d+,"sha256":"([0-9a-f]{64})"/.exec(manifestText)![1];
    const flipped = `${databaseSha[0] === '0' ? '1' : '0'}${databaseSha.slice(1)}`;
    const tampered = Buffer.from(tar.toString('latin1').replace(databaseSha, flipped), 'latin1');
    const cases: [string, Buffer, RegExp][] = [
      ['tampered checksum', gzipSync(tampered), /database\.sqlite in the archive does not match the SHA-256/],
      ['truncated', original.subarray(0, Math.floor(original.length / 2)), /damaged|incomplete|truncated/],
      ['not an archive', Buffer.from('hello, this is not a backup\n'), /damaged or not a backup/],
    ];
    for (const [name, bytes, message] of cases) {
      const file = path.join(root, `${name.replace(/ /g, '-')}.tar.gz`);
      fs.writeFileSync(file, bytes);
      const target = path.join(root, `target-${name.replace(/ /g, '-')}`);
      const res = await runCli(['restore', file], envOf(target));
      assert.equal(res.code, 1, `${name}: ${res.stdout}${res.stderr}`);
      assert.match(res.stderr, message, name);
      assert.doesNotMatch(res.stderr, /\n\s+at /, `${name}: a message, not a stack trace`);
      const left = fs.existsSync(target) ? fs.readdirSync(target, { recursive: true }) : [];
      assert.deepEqual(left, [], `${name}: nothing is left in the target folder`);
    }
  });

  it('fails, writing nothing, when a blob the database refers to is damaged or missing', async () => {
    const uploads = (fs.readdirSync(path.join(dataA(), 'blobs'), { recursive: true }) as string[])
      .map((entry) => path.join(dataA(), 'blobs', entry))
      .filter((file) => file.includes(`${path.sep}uploads${path.sep}`) && fs.statSync(file).isFile());
    assert.ok(uploads.length >= 2);
    fs.appendFileSync(uploads[0], 'tampered');
    fs.rmSync(uploads[1]);
    const target = path.join(root, 'damaged', 'cds.tar.gz');
    const res = await runCli(['backup', target], envOf(dataA()));
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /is not the file recorded at upload|is missing: the blob folder is damaged/);
    assert.deepEqual(fs.readdirSync(path.dirname(target)), [], 'no archive and no temporary file');
  });

  it('never replaces an existing file with a backup', async () => {
    const before = sha256(fs.readFileSync(archive()));
    const res = await runCli(['backup', archive()], envOf(dataB()));
    assert.equal(res.code, 1);
    assert.match(res.stderr, /already exists/);
    assert.equal(sha256(fs.readFileSync(archive())), before);
  });
});

for (const dialect of dialects.filter((d) => d === 'postgres')) {
  describe('cds backup on PostgreSQL', () => {
    it('refuses, pointing to the documented way to back up PostgreSQL and S3', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const res = await runCli(['backup', path.join(os.tmpdir(), `cds-${randomUUID()}.tar.gz`)], database.env);
        assert.equal(res.code, 1, res.stderr);
        assert.match(res.stderr, /DATABASE_URL \(PostgreSQL\).*docs\/operations\.md/s);
      } finally {
        await database.drop();
      }
    });
  });
}
