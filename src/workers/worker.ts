// A worker thread of the pool (src/workers/pool.ts): runs one task at a time, by name.
import { parentPort } from 'node:worker_threads';
import { ServiceError } from '../shared/errors.ts';
import { TASKS, type TaskName } from './tasks.ts';
import { Transfer, type TaskError, type WorkerMessage } from './task-messages.ts';

const port = parentPort!;
const send = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on('message', ({ name, input, collect }: { name: TaskName; input: never; collect: boolean }) => {
  try {
    const answer: unknown = TASKS[name](input, (piece, transfer) => send({ type: 'piece', piece }, transfer));
    if (answer instanceof Transfer) send({ type: 'done', result: answer.value }, answer.list);
    else send({ type: 'done', result: answer });
  } catch (error) {
    const failure: TaskError =
      error instanceof ServiceError
        ? { serviceError: true, code: error.code, message: error.message, details: error.details }
        : { serviceError: false, message: error instanceof Error ? error.message : String(error) };
    send({ type: 'failed', error: failure });
  }
  // A large task's garbage given back now, with its answer sent: an idle thread allocates
  // nothing, so nothing else would ever collect it (pool.ts).
  if (collect) (globalThis as { gc?: () => void }).gc?.();
});
