// multipart/form-data bodies as an async sequence of parts, for the attachment upload. Parsing is
// busboy's; this adapter turns its events into parts the domain consumes one at a time. A file
// part's stream must be consumed (or abandoned) before the next part arrives, so at most one
// file is in flight and nothing is buffered beyond the streams' own high-water marks.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { validationFailed, type ServiceError } from '../domain/errors.ts';
import type { UploadPart } from '../domain/evidence/upload.ts';

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
      limits: { files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes, parts: limits.files + limits.fields, headerPairs: 20 },
    });
  } catch {
    throw validationFailed([{ field: 'Content-Type', message: 'must be multipart/form-data with a boundary' }], 'The body is not multipart/form-data.');
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
  parser.on('close', () => push({ type: 'end' }));
  const onClose = () => {
    if (!request.complete) push({ type: 'error', error: malformed('The client closed the connection before the body was complete.') });
  };
  request.on('close', onClose);
  request.pipe(parser);
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
    request.unpipe(parser);
    if (current?.kind === 'file' && !current.stream.destroyed) current.stream.resume();
    parser.removeAllListeners('file');
    parser.on('error', () => {}); // late errors of an abandoned parse are of no interest
    parser.destroy();
    // The rest of an abandoned body is read and discarded by Node's HTTP server after the response.
    request.resume();
  }
}

function malformed(message = 'The multipart body ended early or is malformed.'): ServiceError {
  return validationFailed([{ field: 'body', message: 'is not complete, valid multipart/form-data' }], message);
}
