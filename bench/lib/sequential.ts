// Latency of one request at a time, measured from a worker thread so the server under test keeps
// the main thread to itself. Before each request the worker asks the main thread to `prepare`
// (for example to bump the organization's data version, so the result cache misses) and starts
// the clock only once that is done: the figures are the requests' alone.
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface SequentialOptions {
  /** the path of request i (cycled when shorter than `requests`) */
  urls: string[];
  headers?: Record<string, string>;
  requests: number;
  warmup?: number;
}

export interface SequentialResult {
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  bytes: number;
}

interface WorkerInput extends SequentialOptions {
  withPrepare: boolean;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(input: WorkerInput): Promise<SequentialResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let pending: (() => void) | undefined;
  parentPort!.on('message', () => pending?.());
  const prepare = (i: number) =>
    input.withPrepare
      ? new Promise<void>((resolve) => {
          pending = resolve;
          parentPort!.postMessage({ type: 'prepare', i });
        })
      : Promise.resolve();
  const once = (url: string) =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const target = new URL(url);
      const req = http.get(
        { agent, hostname: target.hostname, port: target.port, path: target.pathname + target.search, headers: input.headers },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  const total = (input.warmup ?? 0) + input.requests;
  for (let i = 0; i < total; i++) {
    await prepare(i);
    const start = performance.now();
    const r = await once(input.urls[i % input.urls.length]);
    const elapsed = performance.now() - start;
    if (i < (input.warmup ?? 0)) continue;
    if (r.status !== 200) errors++;
    bytes += r.bytes;
    latencies.push(elapsed);
  }
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
    bytes,
  };
}

/** Runs the requests one after another from a worker thread; `prepare(i)` runs in the caller's thread before request i. */
export function runSequential(options: SequentialOptions, prepare?: (i: number) => Promise<void>): Promise<SequentialResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { ...options, withPrepare: Boolean(prepare) } });
    worker.on('message', (message: { type: 'prepare'; i: number } | { type: 'done'; result: SequentialResult }) => {
      if (message.type === 'done') {
        resolve(message.result);
        void worker.terminate();
      } else {
        prepare!(message.i).then(
          () => worker.postMessage('go'),
          (err) => {
            reject(err);
            void worker.terminate();
          },
        );
      }
    });
    worker.once('error', reject);
  });
}

if (!isMainThread && parentPort) {
  measure(workerData as WorkerInput).then((result) => parentPort!.postMessage({ type: 'done', result }));
}
