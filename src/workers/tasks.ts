// The tasks a worker thread runs (src/workers/pool.ts), by name, and the messages a thread sends
// back. A handler gets its input and `emit`, which sends one piece of its answer at once (the main
// thread receives each piece as its own message); what it returns ends the task.
import { programDocumentTasks } from './program-document.ts';

export type Emit = (piece: unknown) => void;

export const TASKS = {
  ...programDocumentTasks,
} satisfies Record<string, (input: never, emit: Emit) => unknown>;

export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];

/** A thrown error as it crosses to the main thread: a ServiceError keeps its code and details. */
export interface TaskError {
  serviceError: boolean;
  code?: string;
  message: string;
  details?: unknown[];
}

export type WorkerMessage = { type: 'piece'; piece: unknown } | { type: 'done'; result: unknown } | { type: 'failed'; error: TaskError };
