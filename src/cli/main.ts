#!/usr/bin/env node
// `cds`: the administration command. Works on the embedded database or on DATABASE_URL, with the
// same configuration as the server. This file only wires the process: arguments and environment
// in (run.ts), an exit code out (report-error.ts); nothing imports it.
import type { CliIo } from './io.ts';
import { reportError } from './report-error.ts';
import { run } from './run.ts';

const io: CliIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };
let code: number;
try {
  code = await run(process.argv.slice(2), process.env, io);
} catch (err) {
  code = reportError(err, io);
}
// Let stdout drain first: a long listing may still be in a pipe.
process.stdout.write('', () => process.exit(code));
