#!/usr/bin/env node
// `compliance`: the command-line client for users of the Compliance Data REST Service.
// This file only wires the process: stdout and signals in, an exit code out (exit-codes.ts).
import { processIo } from './io.ts';
import { interruptSignal } from './interrupt.ts';
import { reportError } from './report.ts';
import { run } from './run.ts';

const io = processIo();
// `compliance … | head` closes the pipe early; that is how the reader says it has enough.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

let code: number;
try {
  code = await run(process.argv.slice(2), process.env, io, interruptSignal());
} catch (err) {
  code = reportError(err, io, { debug: process.env.COMPLIANCE_DEBUG === '1' });
}
// Let stdout drain before exiting (a pipe may still hold the end of a long listing); exiting
// explicitly does not wait for idle keep-alive connections to close.
process.stdout.write('', () => process.exit(code));
