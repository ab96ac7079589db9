// What crosses between a worker thread and the main thread (src/workers/pool.ts, worker.ts): a
// handler's `emit`, which sends one piece of its answer at once (the main thread receives each
// piece as its own message), and the messages a thread sends back. Its own file so the task
// handlers (program-document.ts) use it without importing the registry of tasks that lists them.
import { ServiceError } from '../shared/errors.ts';

export type Emit = (piece: unknown, transfer?: ArrayBuffer[]) => void;

/**
 * A handler's answer with buffers to transfer (moved to the main thread, not copied): what a
 * handler returns wrapped in this is posted as `value` with `list` transferred.
 */
export class Transfer {
  readonly value: unknown;
  readonly list: ArrayBuffer[];
  constructor(value: unknown, list: ArrayBuffer[]) {
    this.value = value;
    this.list = list;
  }
}

/** The buffers of `views` that can move to another thread: a SharedArrayBuffer is shared, never moved. */
export const movable = (...views: Array<ArrayBufferView | undefined>): ArrayBuffer[] =>
  views.flatMap((view) => (view && view.buffer instanceof ArrayBuffer ? [view.buffer] : []));

/** A thrown error as it crosses to the main thread: a ServiceError keeps its code and details. */
export interface TaskError {
  serviceError: boolean;
  code?: string;
  message: string;
  details?: unknown[];
}

/** An error thrown in a thread, as it crosses. */
export const taskError = (error: unknown): TaskError =>
  error instanceof ServiceError
    ? { serviceError: true, code: error.code, message: error.message, details: error.details }
    : { serviceError: false, message: error instanceof Error ? error.message : String(error) };

/** The error as the main thread throws it again: a ServiceError as itself. */
export const thrownAgain = (error: TaskError): Error =>
  error.serviceError ? new ServiceError(error.code as never, error.message, error.details as never) : new Error(error.message);

export type WorkerMessage =
  | { type: 'piece'; piece: unknown }
  | { type: 'done'; result: unknown }
  | { type: 'failed'; error: TaskError }
  /** a stream (WorkerPool.open) has ended: its handler returned, or threw `error` */
  | { type: 'session-ended'; session: number; error?: TaskError };
