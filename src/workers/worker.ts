// A worker thread of the pool (src/workers/pool.ts): runs one task at a time, by name, and beside
// it any number of streams (WorkerPool.open), each a handler that talks over a port of its own.
import { parentPort, workerData } from 'node:worker_threads';
import { TASKS, type TaskName } from './tasks.ts';
import { taskError, Transfer, type WorkerMessage } from './task-messages.ts';
import { lowerThisThreadPriority } from './thread-priority.ts';

lowerThisThreadPriority((workerData as { nice?: number } | undefined)?.nice ?? 0);

const port = parentPort!;
const send = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

interface TaskMessage {
  name: TaskName;
  input: never;
  collect: boolean;
}

interface SessionMessage {
  session: number;
  name: TaskName;
  input: never;
}

port.on('message', async (message: TaskMessage | SessionMessage) => {
  if ('session' in message) {
    try {
      await TASKS[message.name](message.input, () => {});
      send({ type: 'session-ended', session: message.session });
    } catch (error) {
      send({ type: 'session-ended', session: message.session, error: taskError(error) });
    }
    return;
  }
  const { name, input, collect } = message;
  try {
    const answer: unknown = TASKS[name](input, (piece, transfer) => send({ type: 'piece', piece }, transfer));
    if (answer instanceof Transfer) send({ type: 'done', result: answer.value }, answer.list);
    else send({ type: 'done', result: answer });
  } catch (error) {
    send({ type: 'failed', error: taskError(error) });
  }
  // A large task's garbage given back now, with its answer sent: an idle thread allocates
  // nothing, so nothing else would ever collect it (pool.ts).
  if (collect) (globalThis as { gc?: () => void }).gc?.();
});
