// Child processes for the benchmarks: the service (src/main.ts, configured through its
// environment like any deployment) and the raw baselines, each in its own process so that the
// load generator, the service and the baseline never share an event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  child: ChildProcess;
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the service is quiet at LOG_LEVEL=warn, so it is told its port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Settings for every service a bench starts, to compare one setting's two values side by side:
 * BENCH_CHILD_ENV="WORKER_NICE=0 SLICE=…" (space-separated NAME=value pairs).
 */
const extraEnv = (): Record<string, string> =>
  Object.fromEntries(
    (process.env.BENCH_CHILD_ENV ?? '')
      .split(/\s+/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );

/**
 * Starts `node <args>` with only `env` (and PATH) in its environment and resolves once it listens
 * on `port` (or, without one, once it prints `PORT n` or Fastify's "listening at" line).
 */
export function startChild(args: string[], env: Record<string, string>, port?: number): Promise<Child> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A benchmark that fails half-way must not leave its servers running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let done = false;
    const ready = (p: number) => {
      if (done) return;
      done = true;
      resolve({ child, port: p, url: `http://127.0.0.1:${p}`, stop });
    };
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out = (out + chunk).slice(-4096);
      const match = /PORT (\d+)/.exec(out) ?? /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) ready(Number(match[1]));
    });
    child.once('exit', (code) => {
      if (!done) reject(new Error(`${args[0]} exited (${code}) before listening:\n${out}`));
    });
    if (port !== undefined) {
      const poll = async () => {
        while (!done && child.exitCode === null) {
          const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.status < 500,
            () => false,
          );
          if (ok) return ready(port);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      void poll();
    }
  });
}
