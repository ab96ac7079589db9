// `cds restore` checks an archive before it writes (issue 35): crafted archives that a manifest
// alone does not expose, each run through the real `cds` process. While it runs, the target data
// folder is measured every few milliseconds, so "wrote less than 1 MiB" is what the disk saw, not
// what the code meant to do; the staged files are removed afterwards either way.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../harness/process.ts';
import { MIGRATION_NAMES } from '../../src/storage/db/migrate.ts';
import { END_OF_ARCHIVE, fileHeader, padding } from '../../src/storage/backup/tar.ts';

const MiB = 1024 ** 2;
const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

function manifestOf(database: { size: number; sha256: string }): Buffer {
  return Buffer.from(
    JSON.stringify({
      format: 'cds-backup',
      formatVersion: 1,
      serviceVersion: '0.0.0-test',
      createdAt: new Date().toISOString(),
      migrations: MIGRATION_NAMES,
      database,
      blobs: [],
    }),
  );
}

/** A gzipped tar of the manifest and a database.sqlite entry of `declared` bytes of which `body` is given (all of them unless truncated). */
function archiveOf(database: { size: number; sha256: string }, body: Buffer, complete: boolean, manifest = manifestOf(database)): Buffer {
  const parts = [fileHeader('manifest.json', manifest.length, Date.now()), manifest, padding(manifest.length)];
  parts.push(fileHeader('database.sqlite', database.size, Date.now()), body);
  if (complete) parts.push(padding(database.size), END_OF_ARCHIVE);
  return gzipSync(Buffer.concat(parts), { level: 1 });
}

/** The first 100 bytes of an SQLite database of `pageSize`-byte pages; what follows them is not checked until SQLite opens it. */
function sqliteHeader(pageSize: number): Buffer {
  const header = Buffer.alloc(100);
  header.write('SQLite format 3\0', 0, 'latin1');
  header.writeUInt16BE(pageSize === 65536 ? 1 : pageSize, 16);
  return header;
}

/** Runs `cds restore` into `dataDir`, sampling the bytes under it until the process ends. */
async function restoreMeasured(archive: string, dataDir: string) {
  let peak = 0;
  const sample = () => {
    let total = 0;
    for (const entry of fs.existsSync(dataDir) ? (fs.readdirSync(dataDir, { recursive: true }) as string[]) : []) {
      try {
        const stat = fs.statSync(path.join(dataDir, entry));
        if (stat.isFile()) total += stat.size;
      } catch {
        // removed between the listing and the stat
      }
    }
    peak = Math.max(peak, total);
  };
  const timer = setInterval(sample, 2);
  try {
    const res = await runCli(['restore', archive], { DATA_DIR: dataDir }, { timeoutMs: 120_000 });
    return { ...res, peak };
  } finally {
    clearInterval(timer);
  }
}

describe('cds restore checks the archive before writing', () => {
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-restore-first-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a database.sqlite that is not SQLite at its first bytes, though its size and SHA-256 match', async (t) => {
    const body = Buffer.alloc(64 * MiB); // compresses to a few hundred KiB
    const archive = path.join(root, 'not-sqlite.tar.gz');
    fs.writeFileSync(archive, archiveOf({ size: body.length, sha256: sha256(body) }, body, true));
    const target = path.join(root, 'target-not-sqlite');
    const res = await restoreMeasured(archive, target);
    t.diagnostic(
      `archive ${fs.statSync(archive).size} bytes; exit ${res.code}; peak bytes in the data folder ${res.peak}; stderr: ${res.stderr.trim()}`,
    );
    assert.equal(res.code, 1, `${res.stdout}${res.stderr}`);
    assert.match(res.stderr, /database\.sqlite in the archive is not an SQLite database/);
    assert.equal(res.stderr.trim().split('\n').length, 1, 'one line, not a stack trace');
    assert.ok(res.peak < MiB, `wrote ${res.peak} bytes before refusing`);
    const left = fs.existsSync(target) ? fs.readdirSync(target, { recursive: true }) : [];
    assert.deepEqual(left, [], 'nothing is left in the target folder');
  });

  it('refuses, before writing anything, an archive whose manifest holds more than the target has free', async (t) => {
    // a database.sqlite with an SQLite header and a declared size of 1 PiB, of which 8 MiB is in the archive
    const body = Buffer.concat([sqliteHeader(4096), Buffer.alloc(8 * MiB - 100)]);
    const declared = 2 ** 50;
    const archive = path.join(root, 'too-large.tar.gz');
    fs.writeFileSync(archive, archiveOf({ size: declared, sha256: 'a'.repeat(64) }, body, false));
    const target = path.join(root, 'target-too-large');
    assert.ok(declared > fs.statfsSync(root).bavail * fs.statfsSync(root).bsize, 'the declared size is more than is free');
    const res = await restoreMeasured(archive, target);
    t.diagnostic(`exit ${res.code}; peak bytes in the data folder ${res.peak}; stderr: ${res.stderr.trim()}`);
    assert.equal(res.code, 1, `${res.stdout}${res.stderr}`);
    assert.match(res.stderr, /The archive holds 1125899906842624 bytes .*database\.sqlite.* but .* has \d+ bytes free: \d+ bytes short/);
    assert.equal(res.stderr.trim().split('\n').length, 1, 'one line, not a stack trace');
    assert.equal(res.peak, 0, 'nothing written');
    const left = fs.existsSync(target) ? fs.readdirSync(target, { recursive: true }) : [];
    assert.deepEqual(left, [], 'nothing is left in the target folder');
  });

  it('refuses every other bad entry in one line naming it, leaving nothing behind', async (t) => {
    const notWholePages = Buffer.concat([sqliteHeader(4096), Buffer.alloc(10_000)]);
    const forgedHeader = Buffer.concat([sqliteHeader(4096), Buffer.alloc(16 * 4096 - 100)]);
    const spaces = Buffer.alloc(16 * MiB, ' ');
    const cases: [string, Buffer, RegExp][] = [
      [
        'not whole pages',
        archiveOf({ size: notWholePages.length, sha256: sha256(notWholePages) }, notWholePages, true),
        /^database\.sqlite in the archive is not an SQLite database: its size \(10100 bytes\) is not a whole number of its 4096-byte pages/,
      ],
      [
        'shorter than the header',
        archiveOf({ size: 10, sha256: sha256(Buffer.alloc(10)) }, Buffer.alloc(10), true),
        /^database\.sqlite in the archive is not an SQLite database: it is 10 bytes, shorter than the 100-byte header/,
      ],
      [
        'an SQLite header over zeros',
        archiveOf({ size: forgedHeader.length, sha256: sha256(forgedHeader) }, forgedHeader, true),
        /^database\.sqlite in the archive fails SQLite's check \(.+\); the archive is damaged\.$/,
      ],
      [
        'a manifest that is not a JSON object',
        archiveOf({ size: 0, sha256: sha256(Buffer.alloc(0)) }, Buffer.alloc(0), true, spaces),
        /^manifest\.json in the archive is not a JSON object: it does not begin with "\{"/,
      ],
    ];
    for (const [name, bytes, message] of cases) {
      const archive = path.join(root, `${name.replace(/ /g, '-')}.tar.gz`);
      fs.writeFileSync(archive, bytes);
      const target = path.join(root, `target-${name.replace(/ /g, '-')}`);
      const res = await restoreMeasured(archive, target);
      t.diagnostic(`${name}: exit ${res.code}; peak bytes ${res.peak}; stderr: ${res.stderr.trim().split('\n')[0]}`);
      assert.equal(res.code, 1, `${name}: ${res.stdout}${res.stderr}`);
      assert.match(res.stderr.trim(), message, name);
      assert.equal(res.stderr.trim().split('\n').length, 1, `${name}: one line, not a stack trace`);
      const left = fs.existsSync(target) ? fs.readdirSync(target, { recursive: true }) : [];
      assert.deepEqual(left, [], `${name}: nothing is left in the target folder`);
    }
  });
});
