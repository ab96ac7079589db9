// Runs the real `compliance` command (src/main.ts with this Node.js) as a child process, with a
// clean environment: PATH and the locale, a temporary HOME and XDG_CONFIG_HOME, and what the test
// passes, so nothing of the developer's own configuration is read or written.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');

// Node's compile cache keeps the type-stripped and compiled modules between runs: a run from
// source then starts in ~0.1 s instead of ~0.4 s. One cache per test process, removed at its end.
const COMPILE_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), 'compliance-cli-cache-'));
process.on('exit', () => fs.rmSync(COMPILE_CACHE, { recursive: true, force: true }));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** the temporary home (HOME, and XDG_CONFIG_HOME = HOME/.config) */
  home: string;
  env?: Record<string, string | undefined>;
  /** written to stdin, which is then closed (closed at once when absent) */
  input?: string;
  /** called with each chunk of stderr, e.g. to send a signal at the right moment */
  onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
  /** called with all of stdout so far after each chunk, e.g. to act once a line has been printed */
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void;
  timeoutMs?: number;
}

export function makeHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'compliance-cli-test-'));
}

export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  const env: Record<string, string> = {
    HOME: options.home,
    XDG_CONFIG_HOME: path.join(options.home, '.config'),
    NODE_COMPILE_CACHE: COMPILE_CACHE,
  };
  for (const name of ['PATH', 'LANG', 'TZ', 'TMPDIR']) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    options.onStdout?.(stdout, child);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    options.onStderr?.(stderr, child);
  });
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Describes a result for an assertion message. */
export function explain(res: CliResult): string {
  return `exit ${res.code}${res.signal ? ` (${res.signal})` : ''}\n--- stdout:\n${res.stdout.slice(0, 3000)}\n--- stderr:\n${res.stderr.slice(0, 3000)}`;
}
