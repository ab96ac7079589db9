// The real server (`src/main.ts`) and the real CLI (`src/cli/main.ts`) as child processes, for
// tests that need separate processes: several nodes on one database and Redis, signals, the
// first start of an empty embedded database. Children get a clean environment (PATH, HOME and
// what the test passes), so nothing of the test runner's own environment leaks into them.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestDatabase, TestStore } from './engines.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER_ENTRY = path.join(ROOT, 'src/main.ts');
export const CLI_ENTRY = path.join(ROOT, 'src/cli/main.ts');

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  url: string;
  port: number;
  /** the operations listener (/metrics, detailed /readyz), when the server logged one */
  opsUrl: string | undefined;
  child: ChildProcess;
  /** everything written to stdout / stderr so far */
  stdout(): string;
  stderr(): string;
  /** resolves when the process has exited */
  exited: Promise<ExitStatus>;
  /** sends a signal (SIGTERM by default) and waits for the exit */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>;
  /** SIGKILL and wait */
  kill(): Promise<ExitStatus>;
}

export interface ServerProcessOptions {
  /** database to serve (its `env`: DATABASE_URL or SQLITE_PATH/DATA_DIR) */
  database?: Pick<TestDatabase, 'env'>;
  /** rate-limit store (its `env`: REDIS_URL and REDIS_KEY_PREFIX for Redis) */
  store?: Pick<TestStore, 'env'>;
  /** load the demo organization into an empty database; default false (unset: see `env`) */
  demoOnEmpty?: boolean;
  /** extra environment; a key set to undefined is removed */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** the server script to run: src/main.ts unless a build's dist/main.js */
  entry?: string;
  /** how long to wait for the "Server listening" line */
  startTimeoutMs?: number;
}

/**
 * Starts `src/main.ts` on 127.0.0.1 with PORT=0 and resolves once it logs the address it
 * listens on. Rejects (and kills the child) when it exits first or does not start in time.
 */
export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const child = spawnServer(options);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, timeoutMs);
    const onData = () => {
      const found = listeningPort(out);
      if (found !== undefined) {
        cleanup();
        resolve(found);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`server exited before listening (code ${code}, signal ${signal})\nstdout:\n${out}\nstderr:\n${err}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<ExitStatus> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`server did not exit within ${timeoutMs} ms of ${signal}\nstderr:\n${err}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    opsUrl: opsListeningUrl(out),
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop,
    kill: () => stop('SIGKILL'),
  };
}

function spawnServer(options: ServerProcessOptions): ChildProcess {
  const env: Record<string, string | undefined> = {
    ...baseEnv(),
    ...options.database?.env,
    ...options.store?.env,
    PORT: '0',
    HOST: '127.0.0.1',
    OPS_PORT: '0', // a fixed default port would collide between test processes
    DEMO_ON_EMPTY: String(options.demoOnEmpty ?? false),
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return spawn(process.execPath, [options.entry ?? SERVER_ENTRY], {
    cwd: options.cwd ?? os.tmpdir(),
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `src/main.ts` expecting it to exit on its own (a refused start), and waits for that. */
export function runServerProcessToExit(options: ServerProcessOptions = {}, timeoutMs = 30_000): Promise<CliResult> {
  const child = spawnServer(options);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The port of Fastify's JSON log line "Server listening at http://127.0.0.1:PORT", if logged. */
/** Resolves with stdout once it matches `pattern` (the server prints some lines after listening). */
export async function waitForOutput(proc: Pick<ServerProcess, 'stdout'>, pattern: RegExp, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.stdout())) {
    if (Date.now() > deadline) throw new Error(`output did not match ${pattern} within ${timeoutMs} ms:\n${proc.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return proc.stdout();
}

export function listeningPort(stdout: string): number | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.includes('Server listening at')) continue;
    let msg = line;
    try {
      msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? line);
    } catch {
      // not a JSON line: search the raw text
    }
    const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(msg);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** A demo credential as the first start on an empty embedded database prints it (its secret shown only then). */
export function printedCredential(stdout: string, label: 'Read Only' | 'Read & Write'): { clientId: string; clientSecret: string } {
  const match = new RegExp(`${label}\\s+client_id=(cds_id_\\S+)\\s+client_secret=(cds_secret_\\S+)`).exec(stdout);
  if (!match) throw new Error(`no ${label} credential in:\n${stdout}`);
  return { clientId: match[1], clientSecret: match[2] };
}

/** An access token of the demo credential `label` that `server` printed at its first start. */
export async function printedToken(server: ServerProcess, label: 'Read Only' | 'Read & Write' = 'Read & Write'): Promise<string> {
  await waitForOutput(server, new RegExp(`${label}\\s+client_id=\\S+\\s+client_secret=\\S+`), 30_000);
  const { clientId, clientSecret } = printedCredential(server.stdout(), label);
  const answer = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** The operations listener's address from the server's "Operations listener at" log line. */
export function opsListeningUrl(stdout: string): string | undefined {
  return /Operations listener at (http:\/\/[^\s"]+)/.exec(stdout)?.[1];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `src/cli/main.ts ARGS…` with the given environment (on top of PATH/HOME) and waits. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: {
    cwd?: string;
    timeoutMs?: number;
    /** written to the command's stdin (a pipe), then closed */
    stdin?: string;
    /** the CLI script to run: src/cli/main.ts unless a build's dist/cli/main.js */
    entry?: string;
  } = {},
): Promise<CliResult> {
  const fullEnv: Record<string, string | undefined> = { ...baseEnv(), ...env };
  for (const key of Object.keys(fullEnv)) if (fullEnv[key] === undefined) delete fullEnv[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? CLI_ENTRY, ...args], {
      cwd: options.cwd ?? os.tmpdir(),
      env: fullEnv as NodeJS.ProcessEnv,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cds ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
