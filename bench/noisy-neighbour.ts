// Noisy neighbours (issue 36, "One tenant never stalls another"): what one organization's heavy
// work does to the other organizations of the same server. Prints figures; it is not a timed test.
//
//   node bench/noisy-neighbour.ts [--engines sqlite,postgres] [--scenarios a,b,c,d,e,f] [--results 100000] [--quick]
//
// One database per engine holds three scale-1 demo organizations: one "noisy" tenant and two
// "quiet" ones. For each scenario a fresh server (src/main.ts in a child process, the settings a
// deployment gets by default: time scheduler on, default pool and timeouts; only the rate limit
// raised and the logs quiet, as every bench does) is measured twice in the same run: a quiet phase
// (the quiet tenants' traffic alone) and a noisy phase (the same traffic while the noisy tenant
// runs the scenario). The quiet traffic (bench/lib/tenant-traffic.ts, a worker thread) is, per
// quiet tenant, paced loops of warm GET /v1/controls, GET /v1/policies, a PATCH of one of its
// findings (reportLink) and GET /healthz, each on a keep-alive connection of its own.
// Scenarios (the noisy tenant's work):
//   a  a SARIF import trickled over 20 s (quick: 8 s)
//   b  a SARIF import of --results results (default 100,000; quick 5,000), streamed at full speed,
//      its job (a file above IMPORT_JOB_THRESHOLD_BYTES) followed to its end
//   c  a YAML program document just under PROGRAM_MAX_YAML_BYTES (8 MiB; quick 2 MiB), PUT /v1/program?mode=plan
//   d  a 50 MiB JSON program document (quick 10 MiB), PUT /v1/program?mode=plan
//   e  10 trickled SARIF imports at once (each over 20 s; quick 8 s), each into a scope of its own
//   f  a 7.5 MiB YAML program document (quick 2 MiB) sent with a READ-ONLY credential (issue 36, item 3)
// A plan (c, d, f) is sent again, one after another, until the noisy phase has lasted 15 s (quick 5 s).
// Per engine and scenario it prints the quiet tenants' p50/p99/max per request kind, quiet and
// noisy, their ratio, the count of 5xx and 503 answers, the noisy job's duration and answers, and
// the server's resident memory (VmRSS from /proc/<pid>/status, sampled every 100 ms) before and at
// its peak during the noisy phase (and, for a repeated plan, during its first run alone: garbage of
// one run not yet collected adds to the next); each figure beside the issue's goal and a pass/fail
// mark. Few requests fall in a short noisy phase, so there p99 is close to the maximum.
// PostgreSQL runs when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set, with Redis when
// BENCH_REDIS_URL (or TEST_REDIS_URL) is. All traffic goes to 127.0.0.1.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchDatabase, fetchToken, postgresUrl, type BenchDatabase, type BenchEngine } from './lib/bench-database.ts';
import { freePort, ROOT, startChild, type Child } from './lib/child.ts';
import { writeSarif } from './lib/sarif.ts';
import { formatTable, median, sizeOf } from './lib/table.ts';
import { KINDS, startTraffic, type Kind, type QuietTenant, type TrafficResult } from './lib/tenant-traffic.ts';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    scenarios: { type: 'string', default: 'a,b,c,d,e,f' },
    results: { type: 'string' },
    quick: { type: 'boolean', default: false },
    scale: { type: 'string', default: '1' },
  },
});
const quick = values.quick;
const MiB = 1024 * 1024;
const settings = {
  results: Number(values.results ?? (quick ? 5_000 : 100_000)),
  trickleSeconds: quick ? 8 : 20,
  trickleResults: quick ? 2_000 : 20_000,
  slowImports: 10,
  slowImportResults: quick ? 200 : 2_000,
  yamlBytes: quick ? 2 * MiB : 8 * MiB - 64 * 1024,
  jsonBytes: quick ? 10 * MiB : 50 * MiB,
  readOnlyYamlBytes: quick ? 2 * MiB : 7.5 * MiB,
  quietSeconds: quick ? 4 : 10,
  /** plans are repeated until the noisy phase lasts this long (Scenario.repeat) */
  minNoisySeconds: quick ? 5 : 15,
  /** the longest a noisy phase may last: the run stays bounded even if the server hangs */
  noisyCapSeconds: quick ? 120 : 420,
};
const scale = Number(values.scale);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-noisy-'));
const INTERVAL_MS: Record<Kind, number> = {
  'GET /v1/controls': 100,
  'GET /v1/policies': 100,
  'PATCH /v1/vulnerabilities/{id}': 250,
  'GET /healthz': 100,
};

// ---- the noisy tenant's inputs -------------------------------------------------------------

/** Tests with flagged resources, as a program document of about `bytes` bytes (YAML or JSON). */
function testsDocument(format: 'yaml' | 'json', bytes: number, tag: string): { body: Buffer; tests: number; resources: number } {
  const parts: string[] = [];
  let size = 0;
  let tests = 0;
  let resources = 0;
  const push = (text: string) => {
    parts.push(text);
    size += text.length;
  };
  push(format === 'yaml' ? 'version: 1\ntests:\n' : '{"version":1,"tests":[');
  for (let t = 0; t < 100 && size < bytes; t++) {
    tests++;
    const key = `noisy-${tag}-${t}`;
    const name = `Noisy ${tag} test ${t}`;
    push(
      format === 'yaml'
        ? `  - key: ${key}\n    name: ${name}\n    resources:\n`
        : `${t ? ',' : ''}{"key":"${key}","name":"${name}","resources":[`,
    );
    for (let r = 0; r < 10_000 && size < bytes; r++) {
      // Short fields: the most resources per byte (the issue's 54 MiB were 100 tests × 10,000).
      const id = `${tag}-${t}-${r}`;
      const rname = `u${r}`;
      resources++;
      push(
        format === 'yaml'
          ? `      - resourceId: ${id}\n        name: ${rname}\n        status: passing\n`
          : `${r ? ',' : ''}{"resourceId":"${id}","name":"${rname}","status":"passing"}`,
      );
    }
    if (format === 'json') push(']}');
  }
  if (format === 'json') push(']}');
  return { body: Buffer.from(parts.join('')), tests, resources };
}

interface Answer {
  status: number;
  ms: number;
  body: string;
}

const noisyAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/**
 * One request of the noisy tenant: the body sent at once, streamed from a file, or trickled in
 * equal slices every 100 ms over `trickleSeconds`. Aborted (status 0) after the noisy cap.
 */
function send(
  baseUrl: string,
  options: { method: string; path: string; headers: Record<string, string>; body: Buffer | { file: string }; trickleSeconds?: number },
): Promise<Answer> {
  const url = new URL(baseUrl);
  const length = Buffer.isBuffer(options.body) ? options.body.length : fs.statSync(options.body.file).size;
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number, body: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(cap);
      resolve({ status, ms: performance.now() - started, body });
    };
    const req = http.request(
      {
        agent: noisyAgent,
        method: options.method,
        hostname: url.hostname,
        port: url.port,
        path: options.path,
        headers: { ...options.headers, 'content-length': String(length) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          if (text.length < 4096) text += chunk;
        });
        res.on('end', () => finish(res.statusCode ?? 0, text));
        res.on('error', () => finish(res.statusCode ?? 0, text));
      },
    );
    const cap = setTimeout(() => {
      req.destroy();
      finish(0, 'aborted: the noisy phase reached its time bound');
    }, settings.noisyCapSeconds * 1000);
    req.on('error', (error) => finish(0, String(error)));
    // A server that answers before the body is all sent (a 403 before reading) ends the request.
    req.on('response', () => {
      if (trickle) clearInterval(trickle);
    });
    let trickle: NodeJS.Timeout | undefined;
    if (!Buffer.isBuffer(options.body)) {
      fs.createReadStream(options.body.file).pipe(req);
    } else if (!options.trickleSeconds) {
      req.end(options.body);
    } else {
      const body = options.body;
      const slices = options.trickleSeconds * 10;
      const slice = Math.ceil(body.length / slices);
      let offset = 0;
      trickle = setInterval(() => {
        if (req.destroyed) return clearInterval(trickle);
        const next = Math.min(body.length, offset + slice);
        req.write(body.subarray(offset, next));
        offset = next;
        if (offset >= body.length) {
          clearInterval(trickle);
          req.end();
        }
      }, 100);
    }
  });
}

interface Tokens {
  noisy: string;
  noisyReadOnly: string;
  quiet: QuietTenant[];
}

interface Scenario {
  id: string;
  label: string;
  /** what the noisy tenant sends, for the table */
  input: string;
  /** RSS growth is a goal (c, d) */
  memoryGoal: boolean;
  /**
   * Run again, one after another, until the noisy phase has lasted `minNoisySeconds`: a plan
   * writes nothing, so its repeats are alike and the quiet tenants' p99 rests on more requests.
   */
  repeat: boolean;
  prepare(): Promise<void>;
  run(service: Child, tokens: Tokens): Promise<Answer[]>;
}

/**
 * An import answered `202` (a file above IMPORT_JOB_THRESHOLD_BYTES is a job): its job followed to
 * its end, every 100 ms, so that the noisy phase lasts as long as the import's work and not only
 * its upload. The answer's time is the whole of it; its status the job's end (200 or 500).
 */
async function toItsEnd(service: Child, token: string, answer: Answer): Promise<Answer> {
  if (answer.status !== 202) return answer;
  const id = (JSON.parse(answer.body) as { data: { id: string } }).data.id;
  const started = performance.now() - answer.ms;
  for (;;) {
    const res = await fetch(`${service.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    const status = (JSON.parse(body) as { data?: { status?: string } }).data?.status;
    if (status === 'succeeded' || status === 'failed')
      return { status: status === 'succeeded' ? 200 : 500, ms: performance.now() - started, body };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const importPath = (scope: string) => `/v1/vulnerabilities/imports?format=sarif&scope=${encodeURIComponent(scope)}`;
const importHeaders = (token: string, key: string) => ({
  authorization: `Bearer ${token}`,
  'idempotency-key': key,
  'content-type': 'application/sarif+json',
});
const runTag = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const planRequest = (token: string, type: string, body: Buffer) => ({
  method: 'PUT',
  path: '/v1/program?mode=plan',
  headers: { authorization: `Bearer ${token}`, 'content-type': type },
  body,
});

function scenarios(): Scenario[] {
  const files: Record<string, Buffer> = {};
  const documents: Record<string, ReturnType<typeof testsDocument>> = {};
  const described = (name: string, text: string) => {
    const d = documents[name];
    return d ? `${sizeOf(d.body.length)} ${text} (${d.tests} tests, ${d.resources.toLocaleString('en-US')} resources)` : text;
  };
  const file = (name: string) => path.join(dir, name);
  const all: Scenario[] = [
    {
      id: 'a',
      label: '(a) trickled import',
      input: `${settings.trickleResults.toLocaleString('en-US')} SARIF results over ${settings.trickleSeconds} s`,
      memoryGoal: false,
      repeat: false,
      prepare: async () => {
        if (!fs.existsSync(file('trickle.sarif'))) await writeSarif(file('trickle.sarif'), settings.trickleResults, 'a');
        files.trickle = fs.readFileSync(file('trickle.sarif'));
      },
      run: async (service, tokens) => [
        await send(service.url, {
          method: 'POST',
          path: importPath(`bench/trickle-${runTag()}`),
          headers: importHeaders(tokens.noisy, `noisy-a-${runTag()}`),
          body: files.trickle,
          trickleSeconds: settings.trickleSeconds,
        }),
      ],
    },
    {
      id: 'b',
      label: '(b) large import',
      input: `${settings.results.toLocaleString('en-US')} SARIF results`,
      memoryGoal: false,
      repeat: false,
      prepare: async () => {
        const name = `large-${settings.results}.sarif`;
        if (!fs.existsSync(file(name))) await writeSarif(file(name), settings.results, 'b');
      },
      run: async (service, tokens) => [
        await toItsEnd(
          service,
          tokens.noisy,
          await send(service.url, {
            method: 'POST',
            path: importPath(`bench/large-${runTag()}`),
            headers: importHeaders(tokens.noisy, `noisy-b-${runTag()}`),
            body: { file: file(`large-${settings.results}.sarif`) },
          }),
        ),
      ],
    },
    {
      id: 'c',
      label: '(c) YAML plan',
      get input() {
        return described('yaml', 'YAML, mode=plan');
      },
      memoryGoal: true,
      repeat: true,
      prepare: async () => {
        documents.yaml ??= testsDocument('yaml', settings.yamlBytes, 'c');
      },
      run: async (service, tokens) => [await send(service.url, planRequest(tokens.noisy, 'application/yaml', documents.yaml.body))],
    },
    {
      id: 'd',
      label: '(d) JSON plan',
      get input() {
        return described('json', 'JSON, mode=plan');
      },
      memoryGoal: true,
      repeat: true,
      prepare: async () => {
        documents.json ??= testsDocument('json', settings.jsonBytes, 'd');
      },
      run: async (service, tokens) => [await send(service.url, planRequest(tokens.noisy, 'application/json', documents.json.body))],
    },
    {
      id: 'e',
      label: '(e) 10 slow imports',
      input: `${settings.slowImports} × ${settings.slowImportResults.toLocaleString('en-US')} results over ${settings.trickleSeconds} s`,
      memoryGoal: false,
      repeat: false,
      prepare: async () => {
        for (let i = 0; i < settings.slowImports; i++) {
          const name = `slow-${i}.sarif`;
          if (!fs.existsSync(file(name))) await writeSarif(file(name), settings.slowImportResults, `e${i}-`);
          files[name] = fs.readFileSync(file(name));
        }
      },
      run: (service, tokens) =>
        Promise.all(
          Array.from({ length: settings.slowImports }, (_, i) =>
            send(service.url, {
              method: 'POST',
              path: importPath(`bench/slow-${i}-${runTag()}`),
              headers: importHeaders(tokens.noisy, `noisy-e-${i}-${runTag()}`),
              body: files[`slow-${i}.sarif`],
              trickleSeconds: settings.trickleSeconds,
            }),
          ),
        ),
    },
    {
      id: 'f',
      label: '(f) YAML, read-only credential',
      get input() {
        return described('readOnly', 'YAML, mode=plan, read-only');
      },
      memoryGoal: false,
      repeat: true,
      prepare: async () => {
        documents.readOnly ??= testsDocument('yaml', settings.readOnlyYamlBytes, 'f');
      },
      run: async (service, tokens) => [
        await send(service.url, planRequest(tokens.noisyReadOnly, 'application/yaml', documents.readOnly.body)),
      ],
    },
  ];
  return all.filter((s) => selected.includes(s.id));
}

// ---- the server, its memory, the quiet traffic ----------------------------------------------

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function startService(database: BenchDatabase): Promise<Child> {
  const port = await freePort();
  return startChild(
    [path.join(ROOT, 'src/main.ts')],
    {
      ...database.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DEMO_ON_EMPTY: 'false',
      OPS_PORT: 'off',
      RATE_LIMIT_MAX: String(1e9),
      LOG_LEVEL: 'warn',
      ...(process.env.BENCH_CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_CHILD_NODE_OPTIONS } : {}),
    },
    port,
  );
}

async function tokensOf(service: Child, database: BenchDatabase): Promise<Tokens> {
  const [noisy, ...quiet] = database.demos;
  const tenants: QuietTenant[] = [];
  for (const [i, demo] of quiet.entries()) {
    const token = await fetchToken(service.url, demo.readWrite);
    const res = await fetch(`${service.url}/v1/vulnerabilities?count=50`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data?: { vulnerabilityId: string }[] };
    if (res.status !== 200 || !body.data?.length) throw new Error(`quiet tenant ${i + 1}: no findings to write (${res.status})`);
    tenants.push({ name: `quiet-${i + 1}`, token, vulnerabilityIds: body.data.slice(0, 20).map((v) => v.vulnerabilityId) });
  }
  return {
    noisy: await fetchToken(service.url, noisy.readWrite),
    noisyReadOnly: await fetchToken(service.url, noisy.readOnly),
    quiet: tenants,
  };
}

const traffic = (service: Child, tenants: QuietTenant[], maxMs: number) =>
  startTraffic({ baseUrl: service.url, tenants, intervalMs: INTERVAL_MS, maxMs, maxRequests: 20_000, graceMs: 30_000 });

interface Measured {
  engine: string;
  engineKind: BenchEngine;
  scenario: Scenario;
  quiet: TrafficResult;
  noisy: TrafficResult;
  answers: Answer[];
  /** the noisy job's duration, per run */
  runsMs: number[];
  rssBefore: number;
  /** the peak over the whole noisy phase, and over its first run alone */
  rssPeak: number;
  rssFirstPeak: number;
  serverErrors: string[];
}

async function measure(database: BenchDatabase, scenario: Scenario): Promise<Measured> {
  await scenario.prepare();
  const service = await startService(database);
  // The server's error lines (LOG_LEVEL=warn: pino's JSON on stdout), the first few, so that a 500
  // is printed with its cause: the message and the service's own stack frames.
  const serverErrors: string[] = [];
  service.child.stdout!.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (serverErrors.length >= 5 || !/"level":(50|60)/.test(line)) continue;
      try {
        const { err, msg } = JSON.parse(line) as { err?: { message?: string; stack?: string }; msg?: string };
        const frames = (err?.stack ?? '').split('\n').filter((f) => f.includes('/src/'));
        serverErrors.push([err?.message ?? msg, ...frames.slice(0, 4).map((f) => f.trim())].join(' ← '));
      } catch {
        serverErrors.push(line.slice(0, 600)); // a line cut between two chunks
      }
    }
  });
  try {
    const tokens = await tokensOf(service, database);
    // Warm-up (not counted): the quiet tenants' answers are cached and their connections open.
    await traffic(service, tokens.quiet, 1500).finished;
    const quiet = await traffic(service, tokens.quiet, settings.quietSeconds * 1000).finished;
    const pid = service.child.pid!;
    const rssBefore = rssOf(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      try {
        rssPeak = Math.max(rssPeak, rssOf(pid));
      } catch {
        // the process has exited; the peak so far stands
      }
    }, 100);
    const load = traffic(service, tokens.quiet, settings.noisyCapSeconds * 1000);
    await new Promise((r) => setTimeout(r, 500));
    const started = performance.now();
    const answers: Answer[] = [];
    const runsMs: number[] = [];
    let rssFirstPeak: number | undefined;
    do {
      const runStarted = performance.now();
      answers.push(...(await scenario.run(service, tokens)));
      runsMs.push(performance.now() - runStarted);
      rssFirstPeak ??= Math.max(rssPeak, rssOf(pid));
    } while (scenario.repeat && performance.now() - started < settings.minNoisySeconds * 1000);
    const noisy = await load.stop();
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, rssOf(pid));
    return {
      engine: database.label,
      engineKind: database.engine,
      scenario,
      quiet,
      noisy,
      answers,
      runsMs,
      rssBefore,
      rssPeak,
      rssFirstPeak: rssFirstPeak!,
      serverErrors,
    };
  } finally {
    await service.stop();
  }
}

// ---- figures and goals ----------------------------------------------------------------------

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (x: number) => (Number.isNaN(x) ? '-' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
const mark = (ok: boolean) => (ok ? '✔' : '✖');
const READS: Kind[] = ['GET /v1/controls', 'GET /v1/policies'];
const latencies = (r: TrafficResult, kinds: Kind[]) => kinds.flatMap((k) => r[k].latencies);
const countWhere = (r: TrafficResult, kinds: readonly Kind[], test: (status: number) => boolean) =>
  kinds.reduce((n, k) => n + Object.entries(r[k].statuses).reduce((m, [s, c]) => m + (test(Number(s)) ? c : 0), 0), 0);

/** One row per request kind and scenario: the quiet tenants' latencies quiet and noisy, and the goal. */
function latencyRows(m: Measured): string[][] {
  const groups: { label: string; kinds: Kind[]; goal: (quietP99: number, noisyP99: number) => [string, boolean] }[] = [
    { label: 'reads', kinds: READS, goal: (q, n) => [`p99 ≤ 2×quiet+20 ms (${ms(2 * q + 20)})`, n <= 2 * q + 20] },
    {
      label: 'writes',
      kinds: ['PATCH /v1/vulnerabilities/{id}'],
      goal: (q, n) => (m.engineKind === 'sqlite' ? ['p99 ≤ 1 s', n <= 1000] : [`p99 ≤ 2×quiet (${ms(2 * q)})`, n <= 2 * q]),
    },
    { label: '/healthz', kinds: ['GET /healthz'], goal: (_q, n) => ['p99 ≤ 50 ms', n <= 50] },
  ];
  return groups.map((g) => {
    const q = latencies(m.quiet, g.kinds);
    const n = latencies(m.noisy, g.kinds);
    const [qp50, qp99, np50, np99] = [percentile(q, 50), percentile(q, 99), percentile(n, 50), percentile(n, 99)];
    const [goal, ok] = g.goal(qp99, np99);
    const failed = countWhere(m.noisy, g.kinds, (s) => s < 200 || s >= 300);
    return [
      m.engine,
      m.scenario.label,
      g.label,
      `${q.length}/${n.length}`,
      ms(qp50),
      ms(np50),
      ms(qp99),
      ms(np99),
      ms(Math.max(...n)),
      `×${(np99 / qp99).toFixed(1)}`,
      `${countWhere(m.noisy, g.kinds, (s) => s >= 500)}/${countWhere(m.noisy, g.kinds, (s) => s === 503)}/${failed}`,
      `${mark(ok)} ${goal}`,
    ];
  });
}

function scenarioRow(m: Measured): string[] {
  const statuses = new Map<number, number>();
  for (const a of m.answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  const answered = [...statuses].map(([s, c]) => (c > 1 ? `${c}×${s}` : String(s))).join(' ');
  const growth = m.rssPeak - m.rssBefore;
  const quiet503 = countWhere(m.noisy, KINDS, (s) => s === 503);
  return [
    m.engine,
    m.scenario.label,
    m.scenario.input,
    m.runsMs.length > 1 ? `${ms(median(m.runsMs))} (median of ${m.runsMs.length})` : ms(m.runsMs[0]),
    answered,
    sizeOf(m.rssBefore),
    sizeOf(m.rssPeak),
    m.runsMs.length > 1
      ? `+${sizeOf(Math.max(0, growth))} (1st run +${sizeOf(Math.max(0, m.rssFirstPeak - m.rssBefore))})`
      : `+${sizeOf(Math.max(0, growth))}`,
    m.scenario.memoryGoal ? `${mark(growth <= 256 * MiB)} ≤ +256 MiB` : '',
    `${mark(quiet503 === 0)} ${quiet503}`,
  ];
}

// ---- the run --------------------------------------------------------------------------------

const selected = values.scenarios.split(',').filter(Boolean);
const engines = values.engines.split(',').filter(Boolean) as BenchEngine[];
const measured: Measured[] = [];
console.log(
  `noisy-neighbour: ${quick ? 'quick' : 'full'} run, scenarios ${selected.join(',')}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const engine of engines) {
  if (engine === 'postgres' && !postgresUrl()) {
    console.log('PostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    continue;
  }
  const loadStarted = performance.now();
  const database = await createBenchDatabase(engine, { scale, tag: 'noisy', organizations: 3 });
  console.log(
    `${database.label}: 3 scale-${scale} demo organizations loaded in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s`,
  );
  try {
    for (const scenario of scenarios()) {
      const m = await measure(database, scenario);
      measured.push(m);
      // The first answer of each status (the others of a status are alike but for IDs).
      const first = new Map(m.answers.map((a) => [a.status, a] as const).reverse());
      const answers = [...first.values()].map((a) => `${a.status} ${a.body.replace(/\s+/g, ' ').slice(0, 160)}`);
      console.log(`  ${scenario.label}: ${m.runsMs.map(ms).join(', ')}; ${answers.join(' | ')}`);
      for (const line of m.serverErrors) console.log(`    server: ${line}`);
      for (const [phase, result] of [
        ['quiet', m.quiet],
        ['noisy', m.noisy],
      ] as const) {
        const odd = KINDS.map((k) => [k, Object.entries(result[k].statuses).filter(([s]) => !s.startsWith('2'))] as const).filter(
          ([, list]) => list.length > 0,
        );
        for (const [kind, list] of odd)
          console.log(`    ${phase} ${kind}: ${list.map(([s, c]) => `${c}×${s === '0' ? 'aborted' : s}`).join(', ')}`);
      }
    }
  } finally {
    await database.drop();
  }
}
fs.rmSync(dir, { recursive: true, force: true });
noisyAgent.destroy();

console.log(
  `\nQuiet tenants (2 organizations, each: GET /v1/controls and GET /v1/policies every ${INTERVAL_MS['GET /v1/controls']} ms, a PATCH every ${INTERVAL_MS['PATCH /v1/vulnerabilities/{id}']} ms, /healthz every ${INTERVAL_MS['GET /healthz']} ms), quiet phase ${settings.quietSeconds} s vs noisy phase; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  formatTable(
    [
      'Engine',
      'Scenario',
      'Kind',
      'n quiet/noisy',
      'p50 quiet',
      'p50 noisy',
      'p99 quiet',
      'p99 noisy',
      'max noisy',
      'p99 ratio',
      '5xx/503/non-2xx',
      'Goal',
    ],
    measured.flatMap(latencyRows),
    [false, false, false, true, true, true, true, true, true, true, true, false],
  ),
);
console.log('\nThe noisy job and the server');
console.log(
  formatTable(
    ['Engine', 'Scenario', 'Input', 'Noisy job', 'Answers', 'RSS before', 'RSS peak', 'Growth', 'Memory goal', 'Quiet 503s'],
    measured.map(scenarioRow),
    [false, false, false, true, false, true, true, true, false, false],
  ),
);
