// A request body that is one file as it is (the scanner import): a Blob when the bytes are already
// in memory, otherwise a stream that reads the next chunk only when the connection takes it, so a
// file of any size is never held whole.
import type { RequestBody } from '../transport/request-sender.ts';
import { pullStream, toBytes } from './multipart.ts';
import type { FileSource } from './sources.ts';

export function rawBody(file: FileSource, contentType: string): RequestBody {
  let sourceError: unknown;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of file.open()) yield toBytes(chunk);
    } catch (err) {
      sourceError = err;
      throw err;
    }
  }
  return {
    contentType,
    open() {
      sourceError = undefined;
      if (file.blob) return { body: file.blob, streaming: false };
      return { body: pullStream(chunks()), streaming: true };
    },
    replayable: () => file.replayable(),
    sourceError: () => sourceError,
  };
}
