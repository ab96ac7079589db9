// A scanner file parsed in a worker thread (issue 36: an import's parse, the bulk of its CPU, off
// the event loop that answers the other organizations). The thread's side of scan-messages.ts: the
// format's own parser (src/formats/scanners/formats.ts) reads the chunks the main thread feeds
// it, and the findings go back in batches, the parse pausing while SCAN_BATCHES_AHEAD of them wait
// to be taken. The main thread's side is scan-in-pool.ts.
import type { MessagePort } from 'node:worker_threads';
import { scannerFormat } from '../formats/scanners/formats.ts';
import type { ScannedFinding, ScanSummary } from '../domain/vulnerabilities/scanned-finding.ts';
import { SCAN_BATCH_FINDINGS, SCAN_BATCHES_AHEAD, type FromScanThread, type ToScanThread } from './scan-messages.ts';
import { taskError } from './task-messages.ts';

export interface ScanParseInput {
  /** the format's name (the main thread looked it up: it is known) */
  format: string;
  /** the file's port (transferred): chunks in, findings out */
  port: MessagePort;
}

/** Thrown inside the parse when the main thread gave up on the file: the task ends quietly. */
class Cancelled extends Error {}

/** The port's messages to the thread, waited for one kind at a time. */
class Inbox {
  private readonly chunks: Array<ToScanThread & { type: 'chunk' | 'end' }> = [];
  private credit = SCAN_BATCHES_AHEAD;
  private cancelled = false;
  private wake: (() => void) | undefined;
  private asked = false;
  private ended = false;
  private readonly port: MessagePort;

  constructor(port: MessagePort) {
    this.port = port;
    port.on('message', (message: ToScanThread) => {
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

  send(message: FromScanThread): void {
    this.port.postMessage(message);
  }
}

/** The task: parses the file fed through `port` as `format`, to its end, a refusal, or a cancel. */
export async function parseScanTask({ format, port }: ScanParseInput): Promise<void> {
  const inbox = new Inbox(port);
  let live: Readonly<ScanSummary> | undefined;
  let batch: ScannedFinding[] = [];
  /** the summary as it stood when the batch's findings were read (the file reads on before it is sent) */
  let batchSummary: ScanSummary | undefined;
  const flush = async () => {
    if (batch.length === 0) return;
    const json = JSON.stringify(batch);
    const summary = batchSummary as ScanSummary;
    batch = [];
    await inbox.room();
    inbox.send({ type: 'findings', json, summary });
  };
  try {
    const entry = scannerFormat(format);
    if (!entry) throw new Error(`no scanner format ${format}`);
    const findings = entry.parse(inbox.file(), (summary) => (live = summary));
    for (;;) {
      const step = await findings.next();
      if (step.done) {
        await flush();
        inbox.send({ type: 'end', summary: step.value });
        return;
      }
      // The main thread sees the summary of a batch before its findings: a batch ends where the
      // file has just named its scope, so each finding is taken with the summary it was read under.
      if (batch.length > 0 && (live?.scope !== batchSummary?.scope || live?.tool !== batchSummary?.tool)) await flush();
      if (batch.length === 0) batchSummary = { ...(live as ScanSummary) };
      batch.push(step.value);
      if (batch.length >= SCAN_BATCH_FINDINGS) await flush();
    }
  } catch (error) {
    if (error instanceof Cancelled) return;
    // what was read before the problem is taken first, as it would have been in one thread
    await flush().catch(() => {});
    inbox.send({ type: 'failed', error: taskError(error) });
  }
  // The main thread closes the port once it has taken the last message (scan-in-pool.ts).
}

export const scanParseTasks = {
  'scanner.parse': parseScanTask,
};
