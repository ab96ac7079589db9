// A file parsed in a worker thread as a stream (issue 36: an import's parse, the bulk of its CPU, off
// the event loop that answers the other organizations). The thread's side of stream-messages.ts,
// shared by scanner files (scan-parse.ts) and checkers' reports (check-parse.ts): the format's own
// parser reads the chunks the main thread feeds it, and what it yields goes back in batches, the
// parse pausing while STREAM_BATCHES_AHEAD of them wait to be taken. The main thread's side is
// stream-in-pool.ts.
import type { MessagePort } from 'node:worker_threads';
import { STREAM_BATCH_ITEMS, STREAM_BATCHES_AHEAD, type FromParseThread, type ToParseThread } from './stream-messages.ts';
import { taskError } from './task-messages.ts';

/** Thrown inside the parse when the main thread gave up on the file: the task ends quietly. */
class Cancelled extends Error {}

/** The port's messages to the thread, waited for one kind at a time. */
class Inbox {
  private readonly chunks: Array<ToParseThread & { type: 'chunk' | 'end' }> = [];
  private credit = STREAM_BATCHES_AHEAD;
  private cancelled = false;
  private wake: (() => void) | undefined;
  private asked = false;
  private ended = false;
  private readonly port: MessagePort;

  constructor(port: MessagePort) {
    this.port = port;
    port.on('message', (message: ToParseThread) => {
      if (message.type === 'cancel') this.cancelled = true;
      else if (message.type === 'more') this.credit++;
      else {
        this.asked = false;
        this.chunks.push(message);
      }
      this.wake?.();
    });
    // the main thread closed its end (it gave up on the file), whether or not its cancel came first
    port.on('close', () => {
      this.cancelled = true;
      this.wake?.();
    });
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.cancelled) throw new Cancelled();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    if (this.cancelled) throw new Cancelled();
  }

  /** Asks for the next chunk unless it is asked for or the file has ended: one always on its way. */
  private ask(): void {
    if (this.asked || this.ended) return;
    this.asked = true;
    this.send({ type: 'need' });
  }

  /** The file's chunks, as the main thread reads them. */
  async *file(): AsyncGenerator<Uint8Array | string> {
    for (;;) {
      this.ask();
      await this.until(() => this.chunks.length > 0);
      const next = this.chunks.shift()!;
      if (next.type === 'end') {
        this.ended = true;
        return;
      }
      // the next one is read while this one is parsed
      this.ask();
      yield next.chunk;
    }
  }

  /** Waits for room to send one more batch, and takes it. */
  async room(): Promise<void> {
    await this.until(() => this.credit > 0);
    this.credit--;
  }

  send(message: FromParseThread): void {
    this.port.postMessage(message);
  }
}

/**
 * What the items read now are labelled with, for a format whose reader needs to know it of each
 * item (a scanner file's summary: the scope it names may come after findings).
 */
export interface BatchLabels<Label> {
  /** the label of the items read now, as it stands (the parse reads on before it is sent) */
  take(): Label;
  /** whether the items read now are labelled otherwise than `label` */
  changed(label: Label): boolean;
}

/**
 * The task of a stream: runs `read` (the format's parser) over the file fed through `port`, to its
 * end, a refusal, or a cancel. A refusal crosses as taskError makes it, so the main thread throws
 * the same error, naming the same place.
 */
export async function parseStream<Item, Summary, Label>(
  port: MessagePort,
  read: (file: AsyncIterable<Uint8Array | string>) => AsyncGenerator<Item, Summary>,
  labels?: BatchLabels<Label>,
): Promise<void> {
  const inbox = new Inbox(port);
  let batch: Item[] = [];
  /** the label of the batch's items, as it stood when its first was read */
  let label: Label | undefined;
  const flush = async () => {
    if (batch.length === 0) return;
    const json = JSON.stringify(batch);
    const taken = label;
    batch = [];
    await inbox.room();
    inbox.send({ type: 'batch', json, label: taken });
  };
  try {
    const items = read(inbox.file());
    for (;;) {
      const step = await items.next();
      if (step.done) {
        await flush();
        inbox.send({ type: 'end', summary: step.value });
        return;
      }
      // The main thread sees the label of a batch before its items: a batch ends where the label
      // has just changed, so each item is taken with the label it was read under.
      if (batch.length > 0 && labels?.changed(label as Label)) await flush();
      if (batch.length === 0) label = labels?.take();
      batch.push(step.value);
      if (batch.length >= STREAM_BATCH_ITEMS) await flush();
    }
  } catch (error) {
    if (error instanceof Cancelled) return;
    // what was read before the problem is taken first, as it would have been in one thread
    await flush().catch(() => {});
    inbox.send({ type: 'failed', error: taskError(error) });
  }
  // The main thread closes the port once it has taken the last message (stream-in-pool.ts).
}
