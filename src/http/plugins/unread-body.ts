// An answer sent before its request's body was read to the end (a refusal at the file's first
// token, a wrong multipart field, a credential refused before the body was parsed) leaves the rest
// of that body between this request and the connection's next one. Node's HTTP server parses the
// next request only once the body has been read off the socket, and it does not read it when a
// handler had started to (a paused stream): a keep-alive client's next request then waited for
// the request time-out (issue 35). This hook, on every answer, is the one place that settles it
// (docs/decisions/writes-and-uploads.md, "A body left unread"):
// - a body that has fully arrived, or whose Content-Length is within the drain bound (the largest
//   body any door takes: unreadBodyDrainBytes), is read and discarded after the answer, and the
//   connection stays open for the next request;
// - so is one of unknown length (chunked, as clients stream a file), up to the same bound, past
//   which its connection is closed;
// - a longer declared one (which no door would have taken), or one whose stream was destroyed, is
//   answered with `Connection: close`: Node closes the connection after the answer instead of
//   reading what nobody will use.
// Readers of a body that may stop early read it with `iterator({ destroyOnReturn: false })`:
// leaving an async iterator otherwise destroys the request stream, and the connection with it.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { MAX_TOTAL_BYTES } from '../../domain/evidence/upload.ts';

/** A multipart body's part headers and boundaries around its files' bytes, at most. */
const MULTIPART_SLACK_BYTES = 1024 * 1024;

/**
 * Most bytes of a refused request's body read and discarded to keep its connection open: the
 * largest body any door takes (an upload's files together, a scanner file, a program document),
 * so that a request within the limits always gets its refusal. Closing a connection the client is
 * still writing to can lose the answer in flight: the client gets EPIPE or a reset instead (a 4 MiB
 * upload refused `409` when the bound was 4 MiB; a 70 MiB one refused `404` when it was 64 MiB).
 * A refused body costs at most the read an accepted one would.
 */
export function unreadBodyDrainBytes(config: Pick<Config, 'importMaxBytes' | 'program'>): number {
  return Math.max(MAX_TOTAL_BYTES, config.importMaxBytes, config.program.maxBytes) + MULTIPART_SLACK_BYTES;
}

/** True when the request declared a body (a length above zero, or chunked) that was not read to its end. */
function leftUnread(raw: IncomingMessage): boolean {
  if (raw.readableEnded) return false;
  const { 'content-length': length, 'transfer-encoding': coding } = raw.headers;
  return coding !== undefined || (length !== undefined && length !== '0');
}

const discard = () => {};

/**
 * Discards a body of unknown length until the end, or, past `bound` bytes (which no door would
 * have taken), closes the connection: its answer has gone, and what comes after is not read.
 */
function boundedDiscard(raw: IncomingMessage, bound: number): (chunk: Buffer) => void {
  let read = 0;
  return (chunk) => {
    read += chunk.length;
    if (read > bound) raw.socket.destroy();
  };
}

/** A callback hook: it runs on every answer and waits for nothing. */
export function registerUnreadBody(app: FastifyInstance, drainBytes: number) {
  app.addHook('onSend', (request, reply, _payload, done) => {
    const raw = request.raw;
    if (leftUnread(raw)) {
      const length = raw.headers['content-length'];
      const declared = Number(length);
      // A stream its reader destroyed can no longer be read: only closing frees the connection. A
      // body of unknown length (chunked, as clients stream a file) is read up to the bound too.
      const drained =
        !raw.destroyed && (raw.complete || (length === undefined ? true : Number.isSafeInteger(declared) && declared <= drainBytes));
      if (!drained) reply.header('Connection', 'close');
      // The handler is done with the body. A reader that stopped early without letting go (an
      // async iterator abandoned mid-file) still listens for 'readable', which keeps the stream
      // paused whatever resume() says; what remains is discarded until the end or the close.
      raw.removeAllListeners('readable');
      raw.on('data', length === undefined && drained ? boundedDiscard(raw, drainBytes) : discard);
      raw.resume();
    }
    done();
  });
}
