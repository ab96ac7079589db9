// The file of an import as it streams in: counted against the size limit (refused as soon as it
// passes it, with the error an upload gets past its own) and hashed, so the request's fingerprint
// (format, scope and the file's SHA-256) is known once the file has been read, without keeping it.
import { createHash } from 'node:crypto';
import { validationFailed } from '../errors.ts';

export interface MeteredBody {
  chunks: AsyncIterable<Uint8Array>;
  /** the SHA-256 of the bytes read so far, in hex (the whole file once `chunks` is done) */
  sha256(): string;
}

export const tooLarge = (maxBytes: number) =>
  validationFailed([{ field: 'file', message: `the file must be at most ${maxBytes} bytes (IMPORT_MAX_BYTES)` }]);

export function meteredBody(source: AsyncIterable<Uint8Array | string>, maxBytes: number): MeteredBody {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.length;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      hash.update(buf);
      yield buf;
    }
  }
  return {
    chunks: chunks(),
    sha256: () => (digest ??= hash.digest('hex')),
  };
}

/** Reads the whole body for its hash only (a replay is compared with the stored request). */
export async function drain(body: MeteredBody): Promise<string> {
  for await (const _ of body.chunks);
  return body.sha256();
}
