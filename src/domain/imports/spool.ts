// The file of an import, spooled to the blob store before anything is locked (issue 36): while it
// streams in it is counted against IMPORT_MAX_BYTES and hashed (by BlobStore.put), so a client that
// sends slowly holds no transaction, no organization lock and no pooled connection; the import then
// reads it back from the store. A spool blob lives as long as its request: deleted when the import
// ends however it ends, and swept after WRITE_LEASE_MS when its process died (sweepSpool, run by the
// periodic clean-up), its age read from its key. An import accepted as a job (domain/jobs/) keeps its
// spool until the job ends; the sweep leaves the spools of unfinished jobs alone.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../storage/blobs/store.ts';
import { BlobTooLargeError } from '../../storage/blobs/store.ts';
import { validationFailed } from '../../shared/errors.ts';

export const SPOOL_PREFIX = 'spool/';

/**
 * What the spool needs of a format (a scanner's, domain/vulnerabilities/scan-format.ts, or a
 * checker's, domain/tests/check-result.ts): the characters its files open with and the words of the
 * refusal of a file that opens otherwise, and its parser for that refusal.
 */
export interface SpoolFormat {
  readonly opensWith: string;
  readonly openingWords: string;
  parse(chunks: Buffer[]): AsyncGenerator<unknown, unknown>;
}

export interface Spooled {
  key: string;
  /** lowercase hex SHA-256 of the file (the Idempotency-Key fingerprint needs it) */
  sha256: string;
  /** bytes stored (an import above IMPORT_JOB_THRESHOLD_BYTES is a job) */
  size: number;
}

export const tooLarge = (maxBytes: number) =>
  validationFailed([{ field: 'file', message: `the file must be at most ${maxBytes} bytes (IMPORT_MAX_BYTES)` }]);

/** Stores the whole body under a fresh spool key; nothing is left under it when this rejects. */
export async function spoolBody(
  blobs: BlobStore,
  input: { organizationId: string; now: number; format: SpoolFormat; maxBytes: number; body: AsyncIterable<Uint8Array | string> },
): Promise<Spooled> {
  const key = `${SPOOL_PREFIX}${input.organizationId}/${input.now}-${randomUUID()}`;
  try {
    const { sha256, size } = await blobs.put(key, streamOf(objectFirst(input.format, input.body)), { maxBytes: input.maxBytes });
    return { key, sha256, size };
  } catch (err) {
    if (err instanceof BlobTooLargeError) throw tooLarge(input.maxBytes);
    throw err;
  }
}

/**
 * The body as a Readable for BlobStore.put. Not Readable.from: when the store stops early (the file
 * too large, the store failing), destroying that waits for the generator to return, which an async
 * generator does only after its pending read, and a client that stopped sending never completes
 * it: the refusal would wait for the request time-out. Here the return is asked and not awaited;
 * the pending read settles when the connection is drained or closed after the answer.
 */
function streamOf(body: AsyncIterable<Uint8Array>): Readable {
  const chunks = body[Symbol.asyncIterator]();
  return new Readable({
    async read() {
      try {
        const step = await chunks.next();
        this.push(step.done ? null : step.value);
      } catch (err) {
        this.destroy(err as Error);
      }
    },
    destroy(err, callback) {
      chunks.return?.().catch(() => {});
      callback(err);
    },
  });
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BOM = [0xef, 0xbb, 0xbf];

/**
 * Passes the body through, but stops at its first significant byte when that is not one the
 * format's files open with (`{` of a JSON object, `<` of an XML document): such a file is refused
 * before the rest of it is sent or stored, with the parser's own answer on what came so far (a
 * list, a string, not JSON at all).
 */
async function* objectFirst(format: SpoolFormat, body: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  const seen: Buffer[] = [];
  let at = 0; // bytes of the file before the current chunk, until the first significant one
  let checked = false;
  const openings = new Set([...format.opensWith].map((c) => c.charCodeAt(0)));
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!checked) {
      seen.push(buf);
      for (let i = 0; i < buf.length && !checked; i++) {
        const byte = buf[i] as number;
        if ((at + i < BOM.length && byte === BOM[at + i]) || WHITESPACE.has(byte)) continue;
        if (!openings.has(byte)) await refuseStart(format, Buffer.concat(seen));
        checked = true;
      }
      at += buf.length;
      if (checked) seen.length = 0;
    }
    yield buf;
  }
}

/** The parser's refusal of a file that starts with `start` (it stops at the first token here). */
async function refuseStart(format: SpoolFormat, start: Buffer): Promise<never> {
  const findings = format.parse([start]);
  for (;;) if ((await findings.next()).done) break;
  throw validationFailed([{ field: '/', message: format.openingWords }]);
}

/** The spooled file, streamed back for the import to parse. */
export function readSpool(blobs: BlobStore, spooled: Pick<Spooled, 'key'>): AsyncIterable<Uint8Array> {
  return blobs.get(spooled.key);
}

/** Removes the spool; a failure leaves it to sweepSpool. */
export async function removeSpool(blobs: BlobStore, spooled: Pick<Spooled, 'key'>): Promise<void> {
  await blobs.delete(spooled.key).catch(() => {});
}

/**
 * Deletes spool blobs older than `before` (ms since epoch), left by a process that died mid-import;
 * `keep` holds the spools of jobs not finished yet, which may wait longer than any request.
 */
export async function sweepSpool(blobs: BlobStore, before: number, keep: ReadonlySet<string> = new Set()): Promise<number> {
  let removed = 0;
  for await (const key of blobs.list(SPOOL_PREFIX)) {
    const written = Number(/\/(\d+)-[^/]*$/.exec(key)?.[1]);
    if (!(written < before) || keep.has(key)) continue;
    await blobs.delete(key);
    removed++;
  }
  return removed;
}
