// multipart/form-data bodies as an async sequence of parts, for the attachment upload. Parsing is
// busboy's; this adapter turns its events into parts the domain consumes one at a time. A file
// part's stream must be consumed (or abandoned) before the next part arrives, so at most one
// file is in flight and nothing is buffered beyond the streams' own high-water marks.
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import busboy from 'busboy';
import { validationFailed, type ServiceError } from '../shared/errors.ts';
import type { UploadPart } from '../domain/evidence/upload.ts';
import { noteBodyBytes } from './body-scavenges.ts';

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

export async function* multipartParts(request: IncomingMessage, limits: MultipartLimits): AsyncGenerator<UploadPart> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      defParamCharset: 'utf8',
      // going over a limit emits its event (→ 400), never a silent cut
      limits: {
        files: limits.files,
        fields: limits.fields,
        fieldSize: limits.fieldBytes,
        parts: limits.files + limits.fields,
        headerPairs: 20,
      },
    });
  } catch {
    throw validationFailed(
      [{ field: 'Content-Type', message: 'must be multipart/form-data with a boundary' }],
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
  parser.on('file', (name, stream, info) => {
    // Busboy destroys a file stream with an error when the body is cut short or the parse is
    // abandoned, possibly before anyone reads it: without a listener that would crash the process.
    // Whoever reads the stream still sees the failure (stream.errored, its own listeners).
    stream.on('error', () => {});
    push({ type: 'part', part: { kind: 'file', name: name ?? '', filename: info.filename ?? '', stream } });
  });
  parser.on('field', (name, value, info) =>
    push({ type: 'part', part: { kind: 'field', name: name ?? '', value, truncated: info.valueTruncated || info.nameTruncated } }),
  );
  parser.on('filesLimit', () => push({ type: 'error', error: tooMany('files', limits.files) }));
  parser.on('fieldsLimit', () => push({ type: 'error', error: tooMany('fields', limits.fields) }));
  parser.on('partsLimit', () => push({ type: 'error', error: tooMany('parts', limits.files + limits.fields) }));
  parser.on('error', () => push({ type: 'error', error: malformed() }));
  // Busboy skips a part whose headers it cannot read (no or a broken Content-Disposition) without
  // a word; an upload must not then succeed without it. The parts the body delimits are counted
  // ahead of the parser and compared with those the parser reported.
  const delimiters = new DelimiterCounter(boundaryOf(request.headers['content-type']));
  let reported = 0;
  parser.on('file', () => reported++);
  parser.on('field', () => reported++);
  parser.on('close', () => push(delimiters.parts() > reported ? { type: 'error', error: malformed() } : { type: 'end' }));
  // A request that closes before its body has flowed to the end (the client went away, or the
  // server's request time-out destroyed the socket) never ends the pipe below: busboy would wait
  // for bytes that cannot come, and so would the file stream the domain is writing to the blob
  // store, keeping its temporary file, the idempotency claim and the journal row forever. Destroying
  // the parser destroys the file stream in flight with the error, so the write fails and is undone.
  const onClose = () => {
    if (request.readableEnded) return; // the whole body was handed to the parser
    const error = malformed('The client closed the connection before the body was complete.');
    parser.destroy(error);
    push({ type: 'error', error });
  };
  request.on('close', onClose);
  // The request may have closed before the parts are read (while the key was being claimed).
  if (request.destroyed) onClose();
  request.pipe(delimiters).pipe(parser);
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
    request.unpipe(delimiters);
    delimiters.unpipe(parser);
    if (current?.kind === 'file' && !current.stream.destroyed) current.stream.resume();
    parser.removeAllListeners('file');
    parser.on('error', () => {}); // late errors of an abandoned parse are of no interest
    parser.destroy();
    // The rest of an abandoned body is left to the answer's hook: read and discarded within a
    // bound, or the connection closed after the answer (src/http/plugins/unread-body.ts).
  }
}

function malformed(message = 'The multipart body ended early or is malformed.'): ServiceError {
  return validationFailed([{ field: 'body', message: 'is not complete, valid multipart/form-data' }], message);
}

function boundaryOf(contentType: string | undefined): string {
  const match = /;\s*boundary=(?:"([^"]*)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2] ?? '';
}

/** Passes the body through while counting its part delimiters (`CRLF--boundary`, or `--boundary` at the start). */
class DelimiterCounter extends Transform {
  private readonly delimiter: Buffer;
  /** the last bytes of the previous chunk, so a delimiter split across chunks is still seen */
  private tail: Buffer = Buffer.from('\r\n');
  private count = 0;

  constructor(boundary: string) {
    super();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Parts delimited so far: every delimiter opens one, except the closing `--boundary--`. */
  parts(): number {
    return Math.max(0, this.count - 1);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    // Every chunk of the body passes here once: its bytes pace the collections that free them.
    noteBodyBytes(chunk.length);
    const d = this.delimiter;
    // Delimiters crossing from the previous chunk into this one: a small seam, never a copy of the chunk.
    const seam = Buffer.concat([this.tail, chunk.subarray(0, d.length - 1)]);
    for (let at = seam.indexOf(d); at >= 0 && at < this.tail.length; at = seam.indexOf(d, at + 1)) this.count++;
    for (let at = chunk.indexOf(d); at >= 0; at = chunk.indexOf(d, at + 1)) this.count++;
    this.tail =
      chunk.length >= d.length - 1
        ? chunk.subarray(chunk.length - (d.length - 1))
        : seam.subarray(Math.max(0, seam.length - (d.length - 1)));
    callback(null, chunk);
  }
}
