// `cds restore ARCHIVE`: an archive of `cds backup` back into the configured data folder
// (docs/operations.md, "Backup and restore"). Nothing in place is touched until the whole archive
// has been read and checked: the manifest's sizes are compared with the free space first
// (free-space.ts), then the database and every blob are written under temporary names beside
// their destinations, each refused at its first bytes if it is not of its kind (entry-checks.ts)
// and compared with the size and SHA-256 its manifest names, the database checked by SQLite
// itself; only then are they moved into place. A data folder that already holds
// a deployment is refused unless `force` is set, and then replaced as a whole.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Config } from '../../config.ts';
import { openDb } from '../db/connect.ts';
import { MIGRATION_NAMES } from '../db/migrate.ts';
import { sqliteQuickCheck } from '../db/repositories/service/schema-migrations.ts';
import { countLiveInstances } from '../db/repositories/service/server-instances.ts';
import { BackupError } from './backup-error.ts';
import { checkedBody, JSON_OBJECT, SQLITE_DATABASE, type EntryFormat } from './entry-checks.ts';
import { assertRoomFor } from './free-space.ts';
import {
  BLOB_ENTRY_PREFIX,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  MAX_MANIFEST_BYTES,
  parseManifest,
  type ArchivedFile,
  type Manifest,
} from './manifest.ts';
import { readTar, TarFormatError, type TarEntry } from './tar.ts';
import { assertEmbedded, exists } from './write-backup.ts';

export interface RestoreSummary {
  createdAt: string;
  serviceVersion: string;
  latestMigration: string | undefined;
  blobs: number;
  replaced: boolean;
}

/** The files of the embedded database: the file itself and SQLite's companions. */
const databaseFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

export async function restoreBackup(config: Config, archive: string, options: { force: boolean }): Promise<RestoreSummary> {
  assertEmbedded(config, 'restore');
  const source = path.resolve(archive);
  if (!(await exists(source))) throw new BackupError(`No archive at ${source}.`);
  const occupied = await deploymentPresent(config);
  if (occupied && !options.force) {
    throw new BackupError(
      `${occupied} already holds a deployment. Restore into an empty data folder (DATA_DIR), or stop every server using it and pass --force to replace it.`,
    );
  }
  if (occupied && (await serversRunning(config)) > 0) {
    throw new BackupError(
      `A server is running on ${config.sqlitePath} (its heartbeat is recent): stop every server using this data folder before replacing it.`,
    );
  }

  const stagedDb = `${config.sqlitePath}.restoring`;
  const stagedBlobs = `${config.blobDir}.restoring`;
  const cleanup = async () => {
    for (const file of databaseFiles(stagedDb)) await fs.rm(file, { force: true });
    await fs.rm(stagedBlobs, { recursive: true, force: true });
  };
  await cleanup(); // leftovers of an interrupted restore
  let manifest: Manifest;
  try {
    await fs.mkdir(path.dirname(config.sqlitePath), { recursive: true, mode: 0o700 });
    await fs.mkdir(stagedBlobs, { recursive: true, mode: 0o700 });
    manifest = await unpack(source, stagedDb, stagedBlobs);
    await assertSqliteSound(stagedDb);
    // put in place: the old deployment (with --force) goes as a whole, then the restored one moves in
    for (const file of databaseFiles(config.sqlitePath)) await fs.rm(file, { force: true });
    await fs.rm(config.blobDir, { recursive: true, force: true });
    await fs.rename(stagedBlobs, config.blobDir);
    await fs.rename(stagedDb, config.sqlitePath);
  } finally {
    await cleanup();
  }
  return {
    createdAt: manifest.createdAt,
    serviceVersion: manifest.serviceVersion,
    latestMigration: manifest.migrations.at(-1),
    blobs: manifest.blobs.length,
    replaced: occupied !== undefined,
  };
}

/** SQLite's quick_check of the staged database; a file SQLite cannot open at all is refused the same way. */
async function assertSqliteSound(file: string): Promise<void> {
  let check: string;
  try {
    const db = openDb({ sqlitePath: file });
    try {
      check = await sqliteQuickCheck(db.kysely);
    } finally {
      await db.close();
    }
  } catch (err) {
    check = (err as Error).message; // "file is not a database", "database disk image is malformed"
  }
  if (check !== 'ok') throw new BackupError(`${DATABASE_ENTRY} in the archive fails SQLite's check (${check}); the archive is damaged.`);
}

/** Server processes whose heartbeat in the database in place is within the liveness window. */
async function serversRunning(config: Config): Promise<number> {
  if (!(await exists(config.sqlitePath))) return 0;
  const db = openDb({ sqlitePath: config.sqlitePath });
  try {
    return await countLiveInstances(db.kysely, Date.now() - config.claimLivenessMs);
  } catch {
    return 0; // a database from before migration 0009 has no heartbeats; a damaged one is being replaced
  } finally {
    await db.close();
  }
}

/** What of a deployment is already there: the database file, or a blob folder with blobs in it. */
async function deploymentPresent(config: Config): Promise<string | undefined> {
  if (await exists(config.sqlitePath)) return config.sqlitePath;
  const entries = await fs.readdir(config.blobDir).catch(() => [] as string[]);
  return entries.some((name) => !name.startsWith('.')) ? config.blobDir : undefined;
}

/** Reads the archive into the staged files, checking each; returns its manifest. */
async function unpack(source: string, stagedDb: string, stagedBlobs: string): Promise<Manifest> {
  const file = createReadStream(source);
  const gunzip = createGunzip();
  // a read error or a damaged gzip stream surfaces as the iterator's error (pipe() alone would not pass the first on)
  file.on('error', (err) => gunzip.destroy(err));
  file.pipe(gunzip);
  try {
    const entries = readTar(gunzip as AsyncIterable<Buffer>);
    const first = await entries.next();
    if (first.done || first.value.name !== MANIFEST_ENTRY)
      throw new BackupError(`Not a backup archive of this service (its first file is not ${MANIFEST_ENTRY}).`);
    if (first.value.size > MAX_MANIFEST_BYTES)
      throw new BackupError("The archive's manifest is larger than any this service writes; refusing it.");
    const manifest = parseManifest((await collect(checkedBody(first.value, first.value.size, JSON_OBJECT))).toString('utf8'));
    const unknown = manifest.migrations.filter((m) => !MIGRATION_NAMES.includes(m));
    if (unknown.length > 0) {
      throw new BackupError(
        `The archive was made by version ${manifest.serviceVersion}, whose database has migration ${unknown.join(', ')} that this version does not know; restore it with version ${manifest.serviceVersion} or later.`,
      );
    }
    await assertRoomFor(manifest, path.dirname(stagedDb), stagedBlobs);
    const expected = new Map<string, ArchivedFile>(manifest.blobs.map((b) => [`${BLOB_ENTRY_PREFIX}${b.key}`, b]));
    let sawDatabase = false;
    for await (const entry of entries) {
      if (entry.name === DATABASE_ENTRY && !sawDatabase) {
        sawDatabase = true;
        await writeChecked(entry, stagedDb, manifest.database, SQLITE_DATABASE);
        continue;
      }
      const blob = expected.get(entry.name);
      if (!blob)
        throw new BackupError(`The archive holds ${entry.name}, which its manifest does not list (or lists once); the archive is damaged.`);
      expected.delete(entry.name);
      const file = path.join(stagedBlobs, ...entry.name.slice(BLOB_ENTRY_PREFIX.length).split('/'));
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeChecked(entry, file, blob);
    }
    if (!sawDatabase) throw new BackupError('The archive holds no database; it is damaged or incomplete.');
    if (expected.size > 0) {
      throw new BackupError(
        `The archive lacks ${expected.size} blob(s) its manifest lists (first: ${[...expected.keys()][0]}); it is incomplete.`,
      );
    }
    return manifest;
  } catch (err) {
    if (err instanceof TarFormatError) throw new BackupError(`The archive is damaged or not a backup: ${err.message}.`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR')
      throw new BackupError('The archive is damaged or not a backup (not a complete gzip stream).');
    throw err;
  } finally {
    file.destroy();
    gunzip.destroy();
  }
}

async function collect(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/**
 * Writes an entry's bytes to `file` (owner-only, flushed to disk), refusing them unless they match
 * the manifest and, with a `format`, unless they begin as that format does.
 */
async function writeChecked(entry: TarEntry, file: string, expected: ArchivedFile, format?: EntryFormat): Promise<void> {
  if (entry.size !== expected.size)
    throw new BackupError(`${entry.name} in the archive is not the size its manifest names; the archive is damaged.`);
  const hash = createHash('sha256');
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600, flush: true });
  try {
    await pipeline(
      checkedBody(entry, expected.size, format),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      },
      out,
    );
  } catch (err) {
    // a refusal at the first bytes can come before the file is even open: wait until it is closed,
    // or the open would create it after the clean-up has run
    if (!out.closed) await once(out, 'close');
    // the free space was checked first, but other writers share the filesystem
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new BackupError(`No space left writing ${entry.name} of the archive to ${file}; free space there and restore again.`);
    throw err;
  }
  if (hash.digest('hex') !== expected.sha256) {
    throw new BackupError(
      `${entry.name} in the archive does not match the SHA-256 its manifest names; the archive is damaged or was altered.`,
    );
  }
}
