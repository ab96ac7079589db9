// Blob storage for uploaded files (evidence attachments). One interface, one implementation per
// engine, chosen once at start-up (src/storage/blobs/open.ts): a local directory by default, an
// S3-compatible bucket when S3_BUCKET is set. Keys are opaque, caller-chosen strings (an upload
// writes `uploads/<orgId>/<uploadId>/<n>`, src/domain/evidence/upload.ts); every store validates
// them with assertBlobKey. The service never asks whether a key exists: it lists a prefix to
// clean up, deletes what it no longer needs, and reads back only what it wrote itself (a spooled
// scanner file, src/domain/imports/spool.ts).
import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';

export interface PutResult {
  key: string;
  /** bytes stored */
  size: number;
  /** lowercase hex SHA-256 of the bytes stored */
  sha256: string;
}

export interface PutOptions {
  /** more bytes than this aborts the write with BlobTooLargeError */
  maxBytes: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /**
   * Streams `source` into the store under `key` while hashing and counting it; never holds the
   * whole file in memory. The blob appears whole or not at all: on any failure (too large, the
   * source erroring, the store failing) nothing is left under `key` or in temporary space, and
   * `source` is destroyed. An existing blob under `key` is replaced.
   */
  put(key: string, source: Readable, options: PutOptions): Promise<PutResult>;
  /**
   * The blob's bytes as a stream, read as they are consumed (never held whole). An invalid key
   * throws at once; a missing blob errors the stream with BlobNotFoundError, a failing store with
   * DependencyUnavailableError.
   */
  get(key: string): Readable;
  /** Removes the blob; removing a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix` (for orphan clean-up); order is not specified. */
  list(prefix: string): AsyncIterable<string>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Removes leftovers of writes interrupted by a crash, older than `olderThanMs`; stores that leave none omit it. */
  sweepTemporary?(olderThanMs: number): Promise<number>;
  /**
   * Removes what writes to keys directly under `prefix` left in temporary space, when their writer
   * is known to be gone (an abandoned upload); stores that cannot tell omit it (S3: incomplete
   * multipart uploads are aborted by the bucket's lifecycle rule, docs/decisions/storage.md).
   */
  removePartial?(prefix: string): Promise<number>;
}

export class BlobTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
    this.name = 'BlobTooLargeError';
    this.maxBytes = maxBytes;
  }
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`No blob under ${JSON.stringify(key.slice(0, 100))}.`);
    this.name = 'BlobNotFoundError';
  }
}

export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`Invalid blob key ${JSON.stringify(key.slice(0, 100))}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
export const MAX_KEY_LENGTH = 512;

/**
 * A key is one or more `/`-separated segments of letters, digits, `.`, `_` and `-`, none empty
 * and none starting with `.` (so no `.`/`..`, no absolute paths, no backslashes); at most 512
 * characters. Such a key cannot leave the store's root on disk, and names starting with `.` stay
 * free for the stores' own use (temporary files).
 */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'empty');
  if (key.length > MAX_KEY_LENGTH) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_LENGTH} characters`);
  for (const segment of key.split('/')) {
    if (!SEGMENT.test(segment)) {
      throw new InvalidBlobKeyError(key, 'segments must be non-empty, use only letters, digits, ".", "_" and "-", and not start with "."');
    }
  }
}

/** A list prefix: empty, or a key, optionally ending with `/`. */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  assertBlobKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

export function assertMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError('maxBytes must be a whole number ≥ 0');
}

/** Passes bytes through while hashing and counting them; errors once more than maxBytes arrive. */
export class Meter extends Transform {
  // Not called `size` or `length`: lib-storage's Upload takes a Body's `size`/`length` for its byte
  // count and would then refuse the multipart upload as having too many parts.
  bytesSeen = 0;
  private readonly hash = createHash('sha256');
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    super();
    this.maxBytes = maxBytes;
  }

  override _transform(chunk: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    this.bytesSeen += buf.length;
    if (this.bytesSeen > this.maxBytes) {
      callback(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(buf);
    callback(null, buf);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Records the first error `source` emits, so a failed put can tell the caller's stream failing
 * (rethrown as is) from the store failing (DependencyUnavailableError).
 */
export function watchSource(source: Readable): { error: () => unknown } {
  // A source that failed before put() started listening counts too.
  let first: unknown = source.errored ?? undefined;
  const onError = (err: unknown) => {
    if (first === undefined) first = err;
  };
  source.on('error', onError);
  return { error: () => first };
}
