// Steady traffic of "quiet" tenants, run from a worker thread so that whatever the bench's main
// thread does beside (trickling a noisy tenant's upload, sampling memory) never delays it. Each
// tenant runs one paced loop per request kind, each loop on a keep-alive connection of its own:
// the next request starts one interval after the previous one started, or at once when that one
// took longer (so a stalled request shows as one long latency, not as requests never sent). A
// loop ends at `maxMs` or after `maxRequests`, or when the main thread posts 'stop'; a request
// still unanswered `graceMs` later is aborted and counted as an error (status 0).
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface QuietTenant {
  name: string;
  token: string;
  /** findings of the tenant that its writes PATCH in turn */
  vulnerabilityIds: string[];
}

export interface TrafficOptions {
  baseUrl: string;
  tenants: QuietTenant[];
  /** ms between the starts of two requests of one loop, per kind */
  intervalMs: Record<Kind, number>;
  maxMs: number;
  maxRequests: number;
  graceMs: number;
}

export const KINDS = ['GET /v1/controls', 'GET /v1/policies', 'PATCH /v1/vulnerabilities/{id}', 'GET /healthz'] as const;
export type Kind = (typeof KINDS)[number];

export interface KindResult {
  /** latency of every answered or aborted request, in ms */
  latencies: number[];
  /** count per status (0: aborted or socket error) */
  statuses: Record<string, number>;
}

export type TrafficResult = Record<Kind, KindResult>;

function request(
  agent: http.Agent,
  baseUrl: string,
  kind: Kind,
  tenant: QuietTenant,
  n: number,
): { done: Promise<number>; abort: () => void } {
  const url = new URL(baseUrl);
  let method = 'GET';
  let path = '/healthz';
  let body: string | undefined;
  const headers: Record<string, string> = {};
  if (kind !== 'GET /healthz') headers.authorization = `Bearer ${tenant.token}`;
  if (kind === 'GET /v1/controls') path = '/v1/controls';
  if (kind === 'GET /v1/policies') path = '/v1/policies';
  if (kind === 'PATCH /v1/vulnerabilities/{id}') {
    method = 'PATCH';
    // IDs come already encoded (`api%23VUL-9042`, docs/api.md) and go into the path as returned.
    path = `/v1/vulnerabilities/${tenant.vulnerabilityIds[n % tenant.vulnerabilityIds.length]}`;
    body = JSON.stringify({ reportLink: `https://reports.example.com/${encodeURIComponent(tenant.name)}/${n}-${Date.now()}` });
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = `quiet-${tenant.name}-${n}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }
  let req: http.ClientRequest | undefined;
  const done = new Promise<number>((resolve) => {
    req = http.request({ agent, method, hostname: url.hostname, port: url.port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
  return { done, abort: () => req?.destroy() };
}

async function run(options: TrafficOptions, stopped: Promise<void>): Promise<TrafficResult> {
  const result = Object.fromEntries(KINDS.map((k) => [k, { latencies: [], statuses: {} }])) as unknown as TrafficResult;
  const started = performance.now();
  let stop = false;
  const inFlight = new Set<() => void>();
  void stopped.then(() => {
    stop = true;
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const loop = async (tenant: QuietTenant, kind: Kind) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let n = 0; n < options.maxRequests && !stop && performance.now() - started < options.maxMs; n++) {
      const t0 = performance.now();
      const { done, abort } = request(agent, options.baseUrl, kind, tenant, n);
      inFlight.add(abort);
      const status = await done;
      inFlight.delete(abort);
      const own = result[kind];
      own.latencies.push(performance.now() - t0);
      own.statuses[status] = (own.statuses[status] ?? 0) + 1;
      const wait = options.intervalMs[kind] - (performance.now() - t0);
      if (wait > 0 && !stop) await Promise.race([sleep(wait), stopped]);
    }
    agent.destroy();
  };
  const loops = Promise.all(options.tenants.flatMap((tenant) => KINDS.map((kind) => loop(tenant, kind))));
  // Bounded: once told to stop (or at maxMs), requests in flight get graceMs more, then are aborted.
  const bound = Promise.race([stopped, sleep(options.maxMs)]).then(() => sleep(options.graceMs));
  await Promise.race([
    loops,
    bound.then(() => {
      for (const abort of inFlight) abort();
    }),
  ]);
  await loops;
  return result;
}

/** Starts the traffic; `stop()` ends it and resolves with every latency and status. */
export function startTraffic(options: TrafficOptions): { stop(): Promise<TrafficResult>; finished: Promise<TrafficResult> } {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  const finished = new Promise<TrafficResult>((resolve, reject) => {
    worker.once('message', (result: TrafficResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  return {
    finished,
    stop: () => {
      worker.postMessage('stop');
      return finished;
    },
  };
}

if (!isMainThread && parentPort) {
  const stopped = new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));
  run(workerData as TrafficOptions, stopped).then((result) => parentPort!.postMessage(result));
}
