// Files parsed in the worker pool as streams (issue 36: the parse of an import, the bulk of its CPU,
// off the event loop that answers every other organization): the main thread's side of
// stream-messages.ts, shared by scanner files (scan-in-pool.ts) and checkers' reports
// (check-in-pool.ts). A format's parser is replaced by one that feeds the file to a worker thread
// (stream-parse.ts) and yields what the format's own parser yields there, as it would have yielded
// it here, returning what it returns and throwing what it throws. The doors hand these formats to
// the domain (the import routes, the job worker: app.ts), so an import is the same whichever
// thread parses.
import { MessageChannel } from 'node:worker_threads';
import type { ScanBytes } from '../domain/vulnerabilities/scan-format.ts';
import type { WorkerPool } from './pool.ts';
import type { FromParseThread, StreamParseInput, ToParseThread } from './stream-messages.ts';
import { movable, thrownAgain } from './task-messages.ts';
import type { TaskInput, TaskName } from './tasks.ts';

/** The tasks that parse a file as a stream (tasks.ts). */
export type StreamTaskName = { [N in TaskName]: TaskInput<N> extends StreamParseInput ? N : never }[TaskName];

/** A registry's lookup, each format with the parser `parserOf` makes for it (once a format). */
export function formatsInPool<Format extends { readonly name: string; readonly parse: unknown }>(
  find: (name: string) => Format | undefined,
  parserOf: (entry: Format) => Format['parse'],
): (name: string) => Format | undefined {
  const wrapped = new Map<string, Format>();
  return (name) => {
    const entry = find(name);
    if (!entry) return undefined;
    let format = wrapped.get(entry.name);
    if (!format) wrapped.set(entry.name, (format = { ...entry, parse: parserOf(entry) }));
    return format;
  };
}

const iteratorOf = (chunks: ScanBytes): AsyncIterator<Uint8Array | string> | Iterator<Uint8Array | string> =>
  Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();

/**
 * A chunk as it goes to the thread, with the buffer that moves there rather than being copied (the
 * reader is done with a chunk it yielded). A chunk that is part of a larger buffer (Node's pool of
 * small buffers, a slice of a file read whole) has its own bytes copied and the copy moved: the rest
 * of its buffer is someone else's, and the structured clone would copy all of it for every chunk
 * (a 4.7 MB buffer for each of its 8 KiB chunks made a parse about five times slower).
 */
function moving(chunk: Uint8Array | string): [Uint8Array | string, ArrayBuffer[]] {
  if (typeof chunk === 'string') return [chunk, []];
  const own = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : new Uint8Array(chunk);
  return [own, movable(own)];
}

/** The messages of one file's thread, waited for in order; a failure of the thread or of the reader ends the wait. */
class Outbox {
  private readonly queue: FromParseThread[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  push(message: FromParseThread): void {
    this.queue.push(message);
    this.wake?.();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.wake?.();
  }

  async next(): Promise<FromParseThread> {
    for (;;) {
      if (this.failure) throw this.failure;
      const message = this.queue.shift();
      if (message) return message;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/**
 * Parses `chunks` as `format` in a thread of `pool` (the stream task `task`): yields the items the
 * format's parser yields there, returns its return value, throws its error (thrownAgain).
 * `onBatch` is told each batch's label (stream-parse.ts's BatchLabels) before its items are yielded.
 */
export async function* parsedInPool<Item, Summary, Label = unknown>(
  pool: WorkerPool,
  task: StreamTaskName,
  format: string,
  chunks: ScanBytes,
  onBatch?: (label: Label) => void,
): AsyncGenerator<Item, Summary> {
  const { port1, port2 } = new MessageChannel();
  const send = (message: ToParseThread, transfer: ArrayBuffer[] = []) => port1.postMessage(message, transfer);
  const outbox = new Outbox();
  const source = iteratorOf(chunks);
  let ended = false;
  // A chunk read from the file when the thread asks: one at a time, so both ends hold little.
  const feed = async () => {
    try {
      const step = await source.next();
      if (step.done) send({ type: 'end' });
      else {
        const [chunk, transfer] = moving(step.value);
        send({ type: 'chunk', chunk }, transfer);
      }
    } catch (error) {
      outbox.fail(error as Error);
    }
  };
  port1.on('message', (message: FromParseThread) => {
    if (message.type === 'need') void feed();
    else outbox.push(message);
  });
  // a stream beside the thread's other work: it waits on this import's reader, so it never queues (pool.ts)
  pool.open(task, { format, port: port2 }, [port2]).catch((error: Error) => outbox.fail(error));
  try {
    for (;;) {
      const message = await outbox.next();
      if (message.type === 'failed') throw thrownAgain(message.error);
      if (message.type === 'end') {
        ended = true;
        return message.summary as Summary;
      }
      if (message.type !== 'batch') continue;
      onBatch?.(message.label as Label);
      // taken: the thread reads on while this batch goes through the import
      send({ type: 'more' });
      yield* JSON.parse(message.json) as Item[];
    }
  } finally {
    // Stopped early (the import failed, or its reader stopped): the thread drops the file.
    if (!ended) send({ type: 'cancel' });
    port1.close();
    await source.return?.();
  }
}
