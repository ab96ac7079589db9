// Blobs as files under one root directory. A put writes to `<root>/.tmp/<dir>-<uuid>` (same
// filesystem), fsyncs it, then renames it into place, so a blob is either whole or absent, even
// across a crash. `<dir>` names the key's directory (a hash of it), so the partial files of an
// upload whose process died can be removed as soon as it is known dead (removePartial); other
// leftovers in .tmp can only come from a crash mid-write, and sweepTemporary() removes old ones.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DependencyUnavailableError } from '../../shared/errors.ts';
import { assertBlobKey, assertBlobPrefix, assertMaxBytes, BlobNotFoundError, BlobTooLargeError, Meter, watchSource } from './store.ts';
import type { BlobStore, PutOptions, PutResult } from './store.ts';

const TMP = '.tmp';
// Uploaded files are readable by the service's user only (docs/operations.md, "File permissions").
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

export class LocalDiskBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly root: string;
  private readonly tmpDir: string;
  private ready: Promise<void> | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.tmpDir = path.join(this.root, TMP);
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    const file = path.join(this.root, ...key.split('/'));
    // assertBlobKey already rules this out; kept as a second lock on the door.
    if (!file.startsWith(this.root + path.sep)) throw new Error('blob key escapes the store');
    return file;
  }

  private prepare(): Promise<void> {
    this.ready ??= fs.mkdir(this.tmpDir, { recursive: true, mode: PRIVATE_DIR }).then(
      () => undefined,
      (err) => {
        this.ready = undefined;
        throw err;
      },
    );
    return this.ready;
  }

  async put(key: string, source: Readable, options: PutOptions): Promise<PutResult> {
    let file: string;
    try {
      file = this.pathOf(key);
      assertMaxBytes(options.maxBytes);
    } catch (err) {
      source.destroy();
      throw err;
    }
    const watched = watchSource(source);
    const tmp = path.join(this.tmpDir, `${dirTag(path.posix.dirname(key))}-${randomUUID()}`);
    const meter = new Meter(options.maxBytes);
    try {
      await this.prepare();
      // `flush` fsyncs the file before it is closed, so the rename below publishes durable bytes.
      await pipeline(source, meter, createWriteStream(tmp, { flags: 'wx', flush: true, mode: PRIVATE_FILE }));
      await this.publish(tmp, file);
    } catch (err) {
      source.destroy(); // pipeline already did, unless the failure came before it started
      await fs.rm(tmp, { force: true }).catch(() => {});
      if (err instanceof BlobTooLargeError) throw err;
      if (watched.error() !== undefined && err === watched.error()) throw err;
      throw unavailable(err);
    }
    return { key, size: meter.bytesSeen, sha256: meter.digest() };
  }

  private async publish(tmp: string, file: string): Promise<void> {
    const dir = path.dirname(file);
    // A concurrent delete may remove the (then empty) directory between mkdir and rename: retry once.
    for (let attempt = 0; ; attempt++) {
      await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
      try {
        await fs.rename(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err;
      }
    }
    // Make the rename itself durable (not supported on every platform; best effort).
    const handle = await fs.open(dir, 'r').catch(() => undefined);
    if (handle)
      await handle
        .sync()
        .catch(() => {})
        .finally(() => handle.close());
  }

  get(key: string): Readable {
    const file = this.pathOf(key);
    async function* read(): AsyncGenerator<Buffer> {
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, 'r');
      } catch (err) {
        throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? new BlobNotFoundError(key) : unavailable(err);
      }
      // The read stream closes the handle when it ends or is destroyed (a reader that stops early).
      try {
        yield* handle.createReadStream({ highWaterMark: 64 * 1024 });
      } catch (err) {
        throw unavailable(err);
      }
    }
    return Readable.from(read(), { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await fs.rm(file, { force: true });
    } catch (err) {
      throw unavailable(err);
    }
    // Remove directories left empty, up to (not including) the root.
    let dir = path.dirname(file);
    while (dir.startsWith(this.root + path.sep)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break; // not empty (or already gone): stop
      }
      dir = path.dirname(dir);
    }
  }

  async *list(prefix: string): AsyncIterable<string> {
    assertBlobPrefix(prefix);
    // Start at the deepest directory the prefix names in full, then filter by the whole prefix.
    const cut = prefix.lastIndexOf('/');
    const base = cut < 0 ? '' : prefix.slice(0, cut);
    yield* this.walk(base, prefix);
  }

  private async *walk(dirKey: string, prefix: string): AsyncIterable<string> {
    const dir = dirKey === '' ? this.root : path.join(this.root, ...dirKey.split('/'));
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw unavailable(err);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue; // .tmp and anything else not a blob
      const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`;
      if (entry.isDirectory()) {
        // Descend only where keys under this directory can still match the prefix.
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* this.walk(key, prefix);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        yield key;
      }
    }
  }

  /** Checks the root exists (creating it) and is writable. */
  async ping(): Promise<void> {
    try {
      await this.prepare();
      await fs.access(this.root, fs.constants.W_OK);
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** Removes the temporary files of writes to keys directly under `prefix` (their writer is gone). */
  async removePartial(prefix: string): Promise<number> {
    assertBlobPrefix(prefix);
    const tag = `${dirTag(prefix.replace(/\/+$/, ''))}-`;
    let removed = 0;
    for (const name of await fs.readdir(this.tmpDir).catch(() => [] as string[])) {
      if (!name.startsWith(tag)) continue;
      await fs.rm(path.join(this.tmpDir, name), { force: true });
      removed++;
    }
    return removed;
  }

  /** Removes temporary files older than `olderThanMs` (left by a crash mid-write). */
  async sweepTemporary(olderThanMs = 60 * 60_000): Promise<number> {
    let removed = 0;
    const now = Date.now();
    for (const name of await fs.readdir(this.tmpDir).catch(() => [] as string[])) {
      const file = path.join(this.tmpDir, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && now - stat.mtimeMs >= olderThanMs) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}
}

/** A short, file-name-safe tag of a key's directory. */
const dirTag = (dir: string) => createHash('sha256').update(dir).digest('hex').slice(0, 24);

function unavailable(err: unknown): DependencyUnavailableError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const issue =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'disk full'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'not writable'
        : 'io error';
  return new DependencyUnavailableError('blob_store', issue, { cause: err });
}
