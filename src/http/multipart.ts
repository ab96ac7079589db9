// multipart/form-data bodies as an async sequence of parts, for the attachment upload. The bytes
// are parsed by src/http/multipart-parser.ts as they arrive; this adapter turns its calls into
// parts the domain consumes one at a time. A file part is a stream of views into the request's
// own chunks: when the domain reads it more slowly than the client sends, the request is paused
// until the domain asks for more, so at most one chunk waits beyond the stream's high-water mark
// and memory does not grow with the size of a file.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { validationFailed, type ServiceError } from '../domain/errors.ts';
import type { UploadPart } from '../domain/evidence/upload.ts';
import { MultipartError, MultipartParser, validBoundary, type PartHeaders } from './multipart-parser.ts';

export interface MultipartLimits {
  files: number;
  /** field (non-file) parts */
  fields: number;
  /** longest field value, in bytes */
  fieldBytes: number;
}

type Event = { type: 'part'; part: UploadPart } | { type: 'error'; error: unknown } | { type: 'end' };

const tooMany = (what: string, limit: number): ServiceError =>
  validationFailed([{ field: what === 'files' ? 'files' : 'body', message: `at most ${limit} ${what} per upload` }]);

/** A part with a file name (or of type application/octet-stream) is a file; the others are fields. */
const isFile = (h: PartHeaders) => h.filename !== undefined || h.contentType === 'application/octet-stream';

export async function* multipartParts(request: IncomingMessage, limits: MultipartLimits): AsyncGenerator<UploadPart> {
  const boundary = boundaryOf(request.headers['content-type']);
  if (boundary === undefined || !validBoundary(boundary)) {
    throw validationFailed(
      [{ field: 'Content-Type', message: 'must be multipart/form-data with a boundary of 1 to 70 characters' }],
      'The body is not multipart/form-data.',
    );
  }
  const queue: Event[] = [];
  let wake: (() => void) | undefined;
  const push = (event: Event) => {
    queue.push(event);
    wake?.();
    wake = undefined;
  };

  let files = 0;
  let fields = 0;
  /** the file part whose bytes are arriving */
  let file: Readable | undefined;
  /** the field part whose value is arriving */
  let field: { name: string; charset: string; chunks: Buffer[]; bytes: number; truncated: boolean } | undefined;
  let failed = false;
  /** the request is paused until the file stream is read again */
  let paused = false;

  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    // Whoever is reading the file in flight sees the failure (its pipeline rejects).
    file?.destroy(error as Error);
    file = undefined;
    push({ type: 'error', error });
  };

  const parser = new MultipartParser(boundary, {
    partStart(headers) {
      if (files + fields >= limits.files + limits.fields) throw tooMany('parts', limits.files + limits.fields);
      if (isFile(headers)) {
        if (++files > limits.files) throw tooMany('files', limits.files);
        const stream = new Readable({
          read() {
            if (paused && !failed) {
              paused = false;
              request.resume();
            }
          },
        });
        // A stream destroyed with the failure of the body may have no reader yet: without a
        // listener that would crash the process. Its reader still sees the failure (stream.errored).
        stream.on('error', () => {});
        file = stream;
        push({ type: 'part', part: { kind: 'file', name: headers.name, filename: headers.filename ?? '', stream } });
      } else {
        if (++fields > limits.fields) throw tooMany('fields', limits.fields);
        field = { name: headers.name, charset: headers.charset, chunks: [], bytes: 0, truncated: false };
      }
    },
    partData(data) {
      if (file) {
        if (!file.push(data)) paused = true;
      } else if (field && !field.truncated) {
        // Keep at most the limit, and note the value was cut (→ 400 "is too long").
        const room = limits.fieldBytes - field.bytes;
        if (data.length > room) field.truncated = true;
        const kept = data.length > room ? data.subarray(0, room) : data;
        field.chunks.push(Buffer.from(kept)); // a copy: the chunk itself is not kept alive by a small field
        field.bytes += kept.length;
      }
    },
    partEnd() {
      if (file) {
        file.push(null);
        file = undefined;
      } else if (field) {
        push({
          type: 'part',
          part: { kind: 'field', name: field.name, value: decode(Buffer.concat(field.chunks), field.charset), truncated: field.truncated },
        });
        field = undefined;
      }
    },
  });

  const onData = (chunk: Buffer) => {
    if (failed) return;
    try {
      parser.write(chunk);
    } catch (err) {
      // a refusal of the limits is a ServiceError already; anything else is a bug (→ 500)
      fail(err instanceof MultipartError ? malformed() : err);
      return;
    }
    if (paused) request.pause();
  };
  const onEnd = () => {
    if (failed) return;
    try {
      parser.end();
      push({ type: 'end' });
    } catch {
      fail(malformed());
    }
  };
  // A request that closes before its body has arrived whole (the client went away, or the
  // server's request time-out destroyed the socket) never ends: the file stream the domain is
  // writing to the blob store would wait for bytes that cannot come, keeping its temporary file,
  // the idempotency claim and the journal row forever. Failing destroys that stream with the error,
  // so the write fails and is undone.
  const onClose = () => {
    if (request.readableEnded) return; // the whole body was parsed
    fail(malformed('The client closed the connection before the body was complete.'));
  };
  request.on('close', onClose);
  request.on('end', onEnd);
  request.on('data', onData);
  // The request may have closed before the parts are read (while the key was being claimed).
  if (request.destroyed) onClose();

  let current: UploadPart | undefined;
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const event = queue.shift()!;
      if (event.type === 'end') return;
      if (event.type === 'error') throw event.error;
      current = event.part;
      yield event.part;
      // A file the consumer left unread would stall the parser: let it drain.
      if (current.kind === 'file' && !current.stream.readableEnded) current.stream.resume();
    }
  } finally {
    request.off('close', onClose);
    request.off('end', onEnd);
    request.off('data', onData);
    failed = true; // nothing more is parsed
    if (current?.kind === 'file' && !current.stream.destroyed) current.stream.resume();
    file?.destroy();
    // The rest of an abandoned body is read and discarded by Node's HTTP server after the response.
    request.resume();
  }
}

function malformed(message = 'The multipart body ended early or is malformed.'): ServiceError {
  return validationFailed([{ field: 'body', message: 'is not complete, valid multipart/form-data' }], message);
}

function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]*)"|([^\s;]+))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]) : undefined;
}

/** A field's value in its part's charset (UTF-8 when none is given or the runtime does not know it). */
function decode(bytes: Buffer, charset: string): string {
  if (charset === 'utf-8' || charset === 'utf8') return bytes.toString('utf8');
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}
