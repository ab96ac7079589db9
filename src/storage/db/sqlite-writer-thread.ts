// The thread that holds a server's SQLite writer connection (sqlite-writer.ts starts it): each
// message is one statement, run to its end and answered with its result or its error, in the order
// the messages came. The event loop sends a statement and goes on answering other requests while it
// runs here: a bulk insert's statement or an import slice's COMMIT no longer holds it.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite, preparedStatements } from './sqlite-open.ts';
import { execute } from './sqlite-execute.ts';

const { file } = workerData as { file: string };
const port = parentPort!;
const connection = openSqlite(file);
const statements = preparedStatements(connection);

type Message = { id: number; sql: string; parameters: unknown[] } | { pragma: string } | { close: true };

port.on('message', (message: Message) => {
  if ('close' in message) {
    statements.close();
    port.close();
    return;
  }
  if ('pragma' in message) {
    // settings of the connection (sqlite-checkpoints.ts): a failure leaves SQLite's default
    try {
      connection.exec(message.pragma);
    } catch {}
    return;
  }
  try {
    port.postMessage({ id: message.id, result: execute(statements, message) });
  } catch (error) {
    const e = error as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
    // what src/storage/db/errors.ts reads of a node:sqlite error: its code and its message
    port.postMessage({ id: message.id, error: { message: e.message, code: e.code, errcode: e.errcode, errstr: e.errstr } });
  }
});
