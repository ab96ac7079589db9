// Scanner formats whose files are parsed in the worker pool (issue 36: the parse of an import, the
// bulk of its CPU, off the event loop that answers every other organization): the registry's
// formats (src/formats/scanners/formats.ts) with a parser that feeds the file to a worker thread
// (scan-parse.ts) and yields the findings it sends back, as the format's own parser would have
// yielded them. The doors hand these to the domain (the import route, the job worker: app.ts), so
// the import pipeline is the same whichever thread parses. The protocol is scan-messages.ts.
import { MessageChannel } from 'node:worker_threads';
import type { ScanBytes, ScanFormat, ScanParser, SummaryWatch } from '../domain/vulnerabilities/scan-format.ts';
import type { ScannedFinding, ScanSummary } from '../domain/vulnerabilities/scanned-finding.ts';
import { scannerFormat } from '../formats/scanners/formats.ts';
import type { WorkerPool } from './pool.ts';
import type { FromScanThread, ToScanThread } from './scan-messages.ts';
import { movable, thrownAgain } from './task-messages.ts';

/** The registry's lookup, each format's files parsed in `pool`. */
export function scannerFormatsInPool(pool: WorkerPool): (name: string) => ScanFormat | undefined {
  const wrapped = new Map<string, ScanFormat>();
  return (name) => {
    const entry = scannerFormat(name);
    if (!entry) return undefined;
    let format = wrapped.get(entry.name);
    if (!format) wrapped.set(entry.name, (format = { ...entry, parse: parserInPool(pool, entry.name) }));
    return format;
  };
}

const iteratorOf = (chunks: ScanBytes): AsyncIterator<Uint8Array | string> | Iterator<Uint8Array | string> =>
  Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();

/**
 * The buffer a chunk is the whole of, moved to the thread rather than copied (the reader is done
 * with a chunk it yielded); a chunk that is part of a larger buffer (Node's pool of small
 * buffers) is copied, the rest of its buffer being someone else's.
 */
const wholeBuffer = (chunk: Uint8Array | string): ArrayBuffer[] =>
  typeof chunk !== 'string' && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? movable(chunk) : [];

/** The messages of one file's thread, waited for in order; a failure of the thread or of the reader ends the wait. */
class Outbox {
  private readonly queue: FromScanThread[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  push(message: FromScanThread): void {
    this.queue.push(message);
    this.wake?.();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.wake?.();
  }

  async next(): Promise<FromScanThread> {
    for (;;) {
      if (this.failure) throw this.failure;
      const message = this.queue.shift();
      if (message) return message;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** A ScanParser that runs `format`'s parser in a thread of `pool`. */
function parserInPool(pool: WorkerPool, format: string): ScanParser {
  return async function* parseInPool(chunks: ScanBytes, watch?: SummaryWatch): AsyncGenerator<ScannedFinding, ScanSummary> {
    const live: ScanSummary = { format, findings: 0, skipped: 0 };
    watch?.(live);
    const { port1, port2 } = new MessageChannel();
    const send = (message: ToScanThread, transfer: ArrayBuffer[] = []) => port1.postMessage(message, transfer);
    const outbox = new Outbox();
    const source = iteratorOf(chunks);
    let ended = false;
    // A chunk read from the file when the thread asks: one at a time, so both ends hold little.
    const feed = async () => {
      try {
        const step = await source.next();
        if (step.done) send({ type: 'end' });
        else send({ type: 'chunk', chunk: step.value }, wholeBuffer(step.value));
      } catch (error) {
        outbox.fail(error as Error);
      }
    };
    port1.on('message', (message: FromScanThread) => {
      if (message.type === 'need') void feed();
      else outbox.push(message);
    });
    // a stream beside the thread's other work: it waits on this import's reader, so it never queues (pool.ts)
    pool.open('scanner.parse', { format, port: port2 }, [port2]).catch((error: Error) => outbox.fail(error));
    try {
      for (;;) {
        const message = await outbox.next();
        if (message.type === 'failed') throw thrownAgain(message.error);
        if (message.type === 'end') {
          ended = true;
          return message.summary;
        }
        if (message.type !== 'findings') continue;
        for (const key of Object.keys(live)) delete (live as Record<string, unknown>)[key];
        Object.assign(live, message.summary);
        // taken: the thread reads on while this batch goes through the import
        send({ type: 'more' });
        yield* JSON.parse(message.json) as ScannedFinding[];
      }
    } finally {
      // Stopped early (the import failed, or its reader stopped): the thread drops the file.
      if (!ended) send({ type: 'cancel' });
      port1.close();
      await source.return?.();
    }
  };
}
