// `cds backup`: one gzipped tar archive of an embedded deployment, taken while it serves
// (docs/operations.md, "Backup and restore"). The order is what makes it consistent:
//   1. the database is copied as of one commit (sqlite-snapshot.ts), generated service keys
//      included (they live in its service_secrets table);
//   2. the blobs that copy refers to are read from the blob folder. The service never changes or
//      deletes a blob an attachment refers to, so each is there, whole, with the size and SHA-256
//      recorded at upload; any difference is damage and fails the backup. Blobs written after the
//      snapshot belong to attachments the snapshot does not have, and are left out.
// The archive is written under a temporary name next to its destination and linked into place
// only once complete, so a failed or interrupted backup never leaves a file that looks like one.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Config } from '../../config.ts';
import { SERVICE_VERSION } from '../../shared/version.ts';
import { assertBlobKey } from '../blobs/store.ts';
import { openDb } from '../db/connect.ts';
import { listHostedBlobs, type HostedBlob } from '../db/repositories/artifacts/hosted-blobs.ts';
import { listAppliedMigrations } from '../db/repositories/service/schema-migrations.ts';
import { snapshotSqlite } from '../db/sqlite-snapshot.ts';
import { BackupError } from './backup-error.ts';
import { BLOB_ENTRY_PREFIX, DATABASE_ENTRY, MANIFEST_ENTRY, type Manifest } from './manifest.ts';
import { END_OF_ARCHIVE, fileHeader, padding } from './tar.ts';

export interface BackupSummary {
  archive: string;
  archiveBytes: number;
  createdAt: string;
  latestMigration: string | undefined;
  blobs: number;
  blobBytes: number;
}

/** Refuses a backup or restore of a deployment whose data is not in local files (docs/operations.md says how to back those up). */
export function assertEmbedded(config: Config, what: 'backup' | 'restore'): void {
  const where = config.databaseUrl ? 'DATABASE_URL (PostgreSQL)' : config.s3 ? 'S3_BUCKET' : undefined;
  if (where !== undefined) {
    throw new BackupError(
      `cds ${what} works on the embedded deployment (SQLite database and local blob folder); this one uses ${where}. ` +
        'Back up PostgreSQL and the bucket with their own tools, together: see docs/operations.md, "Backup and restore".',
    );
  }
}

export async function writeBackup(config: Config, archive: string, now: () => number = Date.now): Promise<BackupSummary> {
  assertEmbedded(config, 'backup');
  const target = path.resolve(archive);
  if (!(await exists(config.sqlitePath)))
    throw new BackupError(`No database at ${config.sqlitePath} (SQLITE_PATH / DATA_DIR): nothing to back up.`);
  if (await exists(target)) throw new BackupError(`${target} already exists; choose a new name for the archive.`);
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  // next to the archive, so the finished file is linked into place on the same filesystem
  const work = await fs.mkdtemp(path.join(path.dirname(target), '.cds-backup-'));
  try {
    const snapshot = path.join(work, DATABASE_ENTRY);
    const createdAt = new Date(now()).toISOString();
    snapshotSqlite(config.sqlitePath, snapshot);
    const db = openDb({ sqlitePath: snapshot });
    let migrations: string[];
    let blobs: HostedBlob[];
    try {
      migrations = (await listAppliedMigrations(db.kysely)).map((m) => m.name);
      blobs = await listHostedBlobs(db.kysely);
    } finally {
      await db.close();
    }
    await fs.chmod(snapshot, 0o600);
    const manifest: Manifest = {
      format: 'cds-backup',
      formatVersion: 1,
      serviceVersion: SERVICE_VERSION,
      createdAt,
      migrations,
      database: await digestOf(snapshot),
      blobs: blobs.map((b) => ({ key: b.key, size: b.size, sha256: b.sha256 })),
    };
    const partial = path.join(work, 'archive.tar.gz');
    await pipeline(
      Readable.from(archiveEntries(manifest, snapshot, config.blobDir)),
      createGzip(),
      createWriteStream(partial, { flags: 'wx', mode: 0o600, flush: true }),
    );
    // link, not rename: never replaces a file that appeared at `target` meanwhile
    try {
      await fs.link(partial, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        throw new BackupError(`${target} already exists; choose a new name for the archive.`);
      throw err;
    }
    return {
      archive: target,
      archiveBytes: (await fs.stat(target)).size,
      createdAt,
      latestMigration: migrations.at(-1),
      blobs: blobs.length,
      blobBytes: blobs.reduce((sum, b) => sum + b.size, 0),
    };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function* archiveEntries(manifest: Manifest, snapshot: string, blobDir: string): AsyncGenerator<Buffer> {
  const manifestBytes = Buffer.from(JSON.stringify(manifest));
  yield* entry(MANIFEST_ENTRY, manifestBytes.length, [manifestBytes]);
  yield* entry(DATABASE_ENTRY, manifest.database.size, checked(DATABASE_ENTRY, snapshot, manifest.database));
  for (const blob of manifest.blobs) {
    assertBlobKey(blob.key);
    yield* entry(
      `${BLOB_ENTRY_PREFIX}${blob.key}`,
      blob.size,
      checked(`blob ${blob.key}`, path.join(blobDir, ...blob.key.split('/')), blob),
    );
  }
  yield END_OF_ARCHIVE;
}

async function* entry(name: string, size: number, body: AsyncIterable<Buffer> | Buffer[]): AsyncGenerator<Buffer> {
  yield fileHeader(name, size, Date.now());
  yield* body;
  yield padding(size);
}

/** The bytes of `file`, failing the backup unless they are exactly the size and SHA-256 expected. */
async function* checked(what: string, file: string, expected: { size: number; sha256: string }): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let seen = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > expected.size) break;
      hash.update(chunk);
      yield chunk;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new BackupError(`The database refers to ${what}, but ${file} is missing: the blob folder is damaged (see docs/operations.md).`);
    }
    throw err;
  }
  if (seen !== expected.size || hash.digest('hex') !== expected.sha256) {
    throw new BackupError(
      `${what} at ${file} is not the file recorded at upload (size or SHA-256 differs): the blob folder is damaged (see docs/operations.md).`,
    );
  }
}

async function digestOf(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    size += chunk.length;
    hash.update(chunk);
  }
  return { size, sha256: hash.digest('hex') };
}

export async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
