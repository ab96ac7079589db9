// A multipart/form-data body written part by part, so files are never held whole in memory.
// When every file is already bytes or a Blob the body is one Blob (fetch then sends it with a
// length, and runtimes without streaming request bodies can send it too); otherwise it is a
// ReadableStream that pulls the next chunk only when the connection takes it.
import type { RequestBody } from '../transport/request-sender.ts';
import type { FileSource } from './sources.ts';

const encoder = new TextEncoder();

export function multipartBody(fields: Array<[name: string, value: string]>, files: Array<[name: string, file: FileSource]>): RequestBody {
  const boundary = `cds-sdk-${randomHex(16)}`;
  let sourceError: unknown;
  const head = (name: string, file?: FileSource) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"` +
    (file ? `; filename="${quote(file.filename)}"\r\nContent-Type: ${file.contentType}` : '') +
    '\r\n\r\n';
  const fieldText = fields.map(([name, value]) => `${head(name)}${value}\r\n`).join('');
  const tail = `--${boundary}--\r\n`;

  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(fieldText);
    for (const [name, file] of files) {
      yield encoder.encode(head(name, file));
      try {
        for await (const chunk of file.open()) yield toBytes(chunk);
      } catch (err) {
        sourceError = err;
        throw err;
      }
      yield encoder.encode('\r\n');
    }
    yield encoder.encode(tail);
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    open() {
      sourceError = undefined;
      if (files.every(([, f]) => f.blob)) {
        const parts: Array<string | Blob> = [fieldText];
        for (const [name, file] of files) parts.push(head(name, file), file.blob!, '\r\n');
        parts.push(tail);
        return { body: new Blob(parts), streaming: false };
      }
      return { body: pullStream(chunks()), streaming: true };
    },
    replayable: () => files.every(([, f]) => f.replayable()),
    sourceError: () => sourceError,
  };
}

/** A stream that reads the next chunk only when asked (high-water mark 0: nothing read ahead). */
export function pullStream(iterator: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        await iterator.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

export function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('upload streams must yield Uint8Array chunks');
}

/** A quoted header parameter: backslash-escape `\` and `"`, and drop line breaks. */
function quote(value: string): string {
  return value.replace(/[\r\n]/g, ' ').replace(/[\\"]/g, (c) => `\\${c}`);
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
