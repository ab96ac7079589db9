// One closed-loop GET load measurement, with wrk when it is installed (it costs the machine far
// less than a Node generator, so more of the second core is left to the server under test), else
// with the worker-thread generator of bench/lib/load.ts. Both keep `connections` connections
// busy for `seconds` after a warm-up that is not counted.
import { spawn, spawnSync } from 'node:child_process';
import { runLoad } from './load.ts';

export interface HttpLoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** wrk threads (ignored by the built-in generator) */
  threads: number;
}

export interface HttpLoadResult {
  /** requests answered in the measured window (warm-up excluded) */
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** answers that were not 2xx/3xx, and socket errors */
  errors: number;
}

export type Generator = 'wrk' | 'built-in';

/** wrk when `wrk --version` runs, unless BENCH_LOAD=built-in. */
export function pickGenerator(): Generator {
  if (process.env.BENCH_LOAD === 'built-in') return 'built-in';
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return probe.error ? 'built-in' : 'wrk';
}

/**
 * Runs the warm-up, then `measured` is called just before and just after the measured window
 * (to read, for example, the server's CPU time around it).
 */
export async function measureLoad(
  generator: Generator,
  options: HttpLoadOptions,
  measured: { before?: () => void; after?: () => void } = {},
): Promise<HttpLoadResult> {
  if (generator === 'built-in') {
    const load = (seconds: number) =>
      runLoad({ url: options.url, headers: options.headers, connections: options.connections, durationMs: seconds * 1000, warmupMs: 0 });
    if (options.warmupSeconds > 0) await load(options.warmupSeconds);
    measured.before?.();
    const r = await load(options.seconds);
    measured.after?.();
    return { requests: r.requests, rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, errors: r.errors };
  }
  if (options.warmupSeconds > 0) await wrk({ ...options, seconds: options.warmupSeconds });
  measured.before?.();
  const r = await wrk(options);
  measured.after?.();
  return r;
}

function wrk(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const args = [
    `-t${Math.min(options.threads, options.connections)}`,
    `-c${options.connections}`,
    // wrk takes whole seconds
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    '--latency',
    ...Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    options.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`wrk exited ${code}`);
        resolve(parseWrk(out));
      } catch (err) {
        reject(new Error(`${(err as Error).message}: wrk ${args.join(' ')}\n${out}`));
      }
    });
  });
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** Requests/s, the 50th and 99th latency percentiles (--latency) and the errors of wrk's report. */
export function parseWrk(out: string): HttpLoadResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (!rps) throw new Error('no Requests/sec in the output');
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? Number(m[1]) * UNIT_MS[m[2]] : Number.NaN;
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return {
    requests: Number(requests?.[1] ?? 0),
    rps: Number(rps[1]),
    p50Ms: pct('50'),
    p99Ms: pct('99'),
    errors: Number(non2xx?.[1] ?? 0) + socketErrors,
  };
}
