// A small closed-loop HTTP load generator that runs in a worker thread, so the server under test
// keeps the main thread (and the process's other core) to itself. Each of `connections` loops
// sends one request, waits for the whole response, and sends the next, for `durationMs`.
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationMs: number;
  warmupMs?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  bytes: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function generate(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const target = new URL(options.url);
  const once = () =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const req = http.get(
        { agent, hostname: target.hostname, port: target.port, path: target.pathname + target.search, headers: options.headers },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });

  const run = async (ms: number, record: boolean) => {
    const latencies: number[] = [];
    let errors = 0;
    let bytes = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          try {
            const r = await once();
            if (r.status !== 200) errors++;
            bytes += r.bytes;
          } catch {
            errors++;
          }
          if (record) latencies.push(performance.now() - start);
        }
      }),
    );
    return { latencies, errors, bytes };
  };

  await run(options.warmupMs ?? 1000, false);
  const started = performance.now();
  const { latencies, errors, bytes } = await run(options.durationMs, true);
  const elapsed = performance.now() - started;
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    rps: (latencies.length * 1000) / elapsed,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    bytes,
  };
}

/** Runs the load from a worker thread and resolves with its figures. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: options });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (!isMainThread && parentPort) {
  generate(workerData as LoadOptions).then((result) => parentPort!.postMessage(result));
}
