// The tasks a worker thread runs (src/workers/pool.ts), by name. A handler gets its input and
// `emit` (task-messages.ts); what it returns ends the task.
import { checkParseTasks } from './check-parse.ts';
import { programDocumentTasks } from './program-document.ts';
import { scanParseTasks } from './scan-parse.ts';
import type { Emit } from './task-messages.ts';

export const TASKS = {
  ...programDocumentTasks,
  ...scanParseTasks,
  ...checkParseTasks,
} satisfies Record<string, (input: never, emit: Emit) => unknown>;

export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
