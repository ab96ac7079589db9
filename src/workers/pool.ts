// A small pool of worker threads for CPU-heavy work (parsing program documents, and scanner files
// and checkers' reports as streams: WorkerPool.open), so that the event loop keeps answering reads, /healthz and heartbeats while it runs
// (issue 36; docs/decisions/performance.md, "Worker threads"). Created once per app (src/app.ts) with
// WORKER_THREADS threads, started on the first task, closed with the app.
//
// A task names a handler of src/workers/tasks.ts and passes it structured-clonable input. A
// handler's answer comes back in pieces (see `Pieces` in tasks.ts): each piece is its own message,
// so the main thread deserializes a large answer a slice at a time, between other requests,
// instead of holding the loop for the whole of it (but a port hands over every message waiting
// at once, so what the caller does with the pieces should give the loop turns). A ServiceError thrown in a worker is thrown again
// here as the same ServiceError; any other error, or a worker that dies, rejects the task.
//
// Memory (issue 36, goals (c) and (d)): a thread's heap kept the high-water mark of its largest
// task (an idle thread allocates nothing, so its garbage was never collected: 650 MB after an
// 8 MiB YAML document), so after a task that says it is large (`large`) the thread collects its
// heap (worker.ts), once its answer is sent. Ending the thread instead gave the memory back as
// well, but the next document was then parsed by cold code (a 2 MiB YAML document 1.2 s → 2.5 s).
// For that the threads get V8's `gc()` (program-document.ts also collects between the phases of a
// large document; a collection pauses its own thread only): a worker cannot be given --expose-gc
// as its own option, so the flag is set for the process before a thread starts; it adds `gc` only
// to contexts made after it, the worker threads', never to the main thread's. A thread's young
// generation is bounded (YOUNG_GENERATION_MB): V8 sizes it from the machine's memory (192 MB
// here), which a parse fills with short-lived objects before each minor collection; a small one
// is as fast for this work.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker, type TransferListItem } from 'node:worker_threads';
import type { TaskName, TaskInput } from './tasks.ts';
import { thrownAgain, type WorkerMessage } from './task-messages.ts';

// `.ts` when the source runs (Node strips the types in workers too), `.js` in the built dist/.
const WORKER_FILE = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** A thread's young generation, in MiB (V8's default on a machine with gigabytes: 192). */
const YOUNG_GENERATION_MB = 32;

export interface RunOptions {
  /** a large task: its thread collects its garbage when it is done, giving its memory back */
  large?: boolean;
  /** buffers of the input moved to the thread rather than copied (they are detached here) */
  transfer?: TransferListItem[];
}

interface Session {
  resolve(): void;
  reject(error: Error): void;
}

interface Pending {
  name: TaskName;
  input: unknown;
  pieces: unknown[];
  options: RunOptions;
  resolve(value: { pieces: unknown[]; result: unknown }): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  task: Pending | undefined;
  /** the streams open on the thread (WorkerPool.open), by ID */
  sessions: Map<number, Session>;
}

export class WorkerPool {
  readonly size: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #closed = false;
  #sessionIds = 0;

  /** `nice`: the threads' nice value (thread-priority.ts; WORKER_NICE) */
  readonly #nice: number;

  constructor(size: number, { nice = 0 }: { nice?: number } = {}) {
    this.size = Math.max(1, size);
    this.#nice = nice;
  }

  /** Runs `name` on a free thread (queued in order when all are busy): its pieces and its result. */
  run<N extends TaskName>(name: N, input: TaskInput<N>, options: RunOptions = {}): Promise<{ pieces: unknown[]; result: unknown }> {
    if (this.#closed) return Promise.reject(new Error('the worker pool is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ name, input, pieces: [], options, resolve, reject });
      this.#dispatch();
    });
  }

  /**
   * Opens a stream on a thread (a scanner file or a checker's report fed and drained by the caller: stream-in-pool.ts): the
   * handler `name` talks over the port its input carries (`transfer` moves it) and runs beside
   * whatever else its thread runs, so it never waits for a free thread. A stream waits on the
   * main thread as it runs: queued behind streams that wait on it, it could wait for ever (an
   * import whose parse waits for its reader, which waits for SQLite's writer, which an import
   * whose parse is queued holds). Ends when the handler returns; rejects if it throws or the
   * thread dies.
   */
  open<N extends TaskName>(name: N, input: TaskInput<N>, transfer: TransferListItem[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the worker pool is closed'));
    const slot = this.#slots.length < this.size ? this.#start() : this.#slots.reduce((a, b) => (b.sessions.size < a.sessions.size ? b : a));
    const id = ++this.#sessionIds;
    return new Promise((resolve, reject) => {
      slot.sessions.set(id, { resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage({ session: id, name, input }, transfer);
    });
  }

  /** The streams open on the threads now (for the metrics and the tests: one that is never closed is a leak). */
  get streams(): number {
    return this.#slots.reduce((n, slot) => n + slot.sessions.size, 0);
  }

  /** Ends every thread; tasks not finished are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.splice(0)) pending.reject(new Error('the worker pool is closed'));
    await Promise.all(
      this.#slots.splice(0).map((slot) => {
        slot.task?.reject(new Error('the worker pool is closed'));
        for (const session of slot.sessions.values()) session.reject(new Error('the worker pool is closed'));
        return slot.worker.terminate();
      }),
    );
  }

  #dispatch() {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.task === undefined);
      if (!slot && this.#slots.length < this.size) slot = this.#start();
      if (!slot) return;
      const task = this.#queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage({ name: task.name, input: task.input, collect: task.options.large === true }, task.options.transfer ?? []);
      // the input is the thread's now: not kept here while the task runs
      task.input = undefined;
    }
  }

  #start(): Slot {
    v8.setFlagsFromString('--expose-gc');
    const worker = new Worker(WORKER_FILE, {
      workerData: { nice: this.#nice },
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    const slot: Slot = { worker, task: undefined, sessions: new Map() };
    this.#slots.push(slot);
    // An idle thread does not keep the process alive (it is ref'ed while it runs a task or a stream).
    worker.unref();
    const idle = () => {
      if (slot.task === undefined && slot.sessions.size === 0) slot.worker.unref();
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'session-ended') {
        const session = slot.sessions.get(message.session);
        slot.sessions.delete(message.session);
        idle();
        if (message.error) session?.reject(thrownAgain(message.error));
        else session?.resolve();
        return;
      }
      const task = slot.task;
      if (!task) return;
      if (message.type === 'piece') {
        task.pieces.push(message.piece);
        return;
      }
      slot.task = undefined;
      idle();
      if (message.type === 'done') task.resolve({ pieces: task.pieces, result: message.result });
      else task.reject(thrownAgain(message.error));
      this.#dispatch();
    });
    // A thread that dies (out of memory, a crash) fails its task and is replaced on demand.
    const lost = (error: Error) => {
      const index = this.#slots.indexOf(slot);
      if (index < 0) return;
      this.#slots.splice(index, 1);
      slot.task?.reject(error);
      slot.task = undefined;
      for (const session of slot.sessions.values()) session.reject(error);
      slot.sessions.clear();
      if (!this.#closed) this.#dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`a worker thread exited (code ${code})`)));
    return slot;
  }
}
