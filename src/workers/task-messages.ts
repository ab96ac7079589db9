// What crosses between a worker thread and the main thread (src/workers/pool.ts, worker.ts): a
// handler's `emit`, which sends one piece of its answer at once (the main thread receives each
// piece as its own message), and the messages a thread sends back. Its own file so the task
// handlers (program-document.ts) use it without importing the registry of tasks that lists them.

export type Emit = (piece: unknown) => void;

/** A thrown error as it crosses to the main thread: a ServiceError keeps its code and details. */
export interface TaskError {
  serviceError: boolean;
  code?: string;
  message: string;
  details?: unknown[];
}

export type WorkerMessage = { type: 'piece'; piece: unknown } | { type: 'done'; result: unknown } | { type: 'failed'; error: TaskError };
