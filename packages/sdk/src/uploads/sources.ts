// The files of an upload, from a path, bytes or a stream, each made ready to be read once per
// attempt. Paths are streamed from disk (node:fs, loaded only when a path is given, so the SDK
// still runs where there is no file system) and read again on a retry; bytes and Blobs are
// already re-readable; a stream can be read once, unless the caller passes a function that
// makes a new one.

export type ByteStream = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export type UploadFile =
  | { path: string; filename?: string; contentType?: string }
  | { data: Uint8Array | ArrayBuffer | Blob; filename: string; contentType?: string }
  | {
      /** a one-shot stream (not retried once read), or a function returning a new stream per attempt (retried) */
      stream: ByteStream | (() => ByteStream);
      filename: string;
      contentType?: string;
    };

export interface FileSource {
  filename: string;
  contentType: string;
  /** set when the bytes are in memory or a Blob, so the body can be one Blob */
  blob?: Blob;
  /** the bytes for one attempt */
  open(): AsyncIterable<Uint8Array>;
  replayable(): boolean;
}

const DEFAULT_TYPE = 'application/octet-stream';

export async function prepareFile(file: UploadFile): Promise<FileSource> {
  const contentType = file.contentType ?? DEFAULT_TYPE;
  if ('path' in file) {
    const fs = await loadFs();
    const stat = await fs.promises.stat(file.path);
    if (!stat.isFile()) throw new TypeError(`${file.path} is not a file`);
    return {
      filename: file.filename ?? baseName(file.path),
      contentType,
      open: () => fs.createReadStream(file.path, { highWaterMark: 64 * 1024 }),
      replayable: () => true,
    };
  }
  if ('data' in file) {
    const blob = file.data instanceof Blob ? file.data : new Blob([file.data as Uint8Array<ArrayBuffer> | ArrayBuffer]);
    return { filename: file.filename, contentType, blob, open: () => readStream(blob.stream()), replayable: () => true };
  }
  if ('stream' in file) {
    const { stream } = file;
    if (typeof stream === 'function') {
      return { filename: file.filename, contentType, open: () => asIterable(stream()), replayable: () => true };
    }
    let opened = false;
    return {
      filename: file.filename,
      contentType,
      open: () => {
        opened = true;
        return asIterable(stream);
      },
      replayable: () => !opened,
    };
  }
  throw new TypeError('each file needs a path, data or a stream');
}

function asIterable(stream: ByteStream): AsyncIterable<Uint8Array> {
  return stream instanceof ReadableStream ? readStream(stream) : stream;
}

/** Reads a web stream through its reader (async iteration of ReadableStream is not everywhere yet). */
async function* readStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** The few node:fs calls used, typed here so the SDK's types need no Node declarations. */
interface NodeFs {
  promises: { stat(path: string): Promise<{ isFile(): boolean }> };
  createReadStream(path: string, options: { highWaterMark: number }): AsyncIterable<Uint8Array>;
}

async function loadFs(): Promise<NodeFs> {
  // A variable specifier keeps bundlers for browsers from trying to include node:fs.
  const specifier = 'node:fs';
  try {
    return (await import(specifier)) as NodeFs;
  } catch (err) {
    throw new TypeError('uploading from a path needs node:fs; pass the bytes or a stream instead', { cause: err });
  }
}
