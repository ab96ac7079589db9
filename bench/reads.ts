// Warm reads: every list endpoint, a get-one and /healthz (Fastify's own floor), on SQLite and on
// PostgreSQL + Redis, each measured against a raw node:http server that sends the very same bytes
// (captured from the service's answer), alternated in the same run: the ratio service/raw is what
// the service costs over the socket, and holds across machines and busy neighbours where absolute
// requests/s do not.
//
//   node bench/reads.ts [--engines sqlite,postgres] [--scale 1] [--seconds 3] [--warmup 1]
//                       [--rounds 2] [--connections 32] [--threads 1] [--paths /v1/controls,...]
//                       [--service DIR]
//
// PostgreSQL runs when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set, with Redis as the rate-limit
// store when BENCH_REDIS_URL (or TEST_REDIS_URL) is; otherwise it is reported as skipped. The service
// is src/main.ts in a child process, configured through its environment only: demo data, the API
// rate limit raised so the limiter never answers 429, LOG_LEVEL=warn (no line per request). The load
// generator is wrk when installed (BENCH_LOAD=built-in forces bench/lib/load.ts). --service runs
// src/main.ts of another checkout (for example a clone of main beside a branch) against the demo
// data this checkout loads: its migrations must be the same or a prefix of this checkout's.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchDatabase, fetchToken, postgresUrl, redisUrl, type BenchEngine } from './lib/bench-database.ts';
import { freePort, ROOT, startChild } from './lib/child.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { measureLoad, pickGenerator, type HttpLoadResult } from './lib/http-load.ts';
import { compact, formatTable, median, sizeOf } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    scale: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '1' },
    paths: { type: 'string' },
    service: { type: 'string' },
  },
});
const scale = Number(values.scale);
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const threads = Number(values.threads);
const generator = pickGenerator();
const serviceMain = path.join(values.service ? path.resolve(values.service) : ROOT, 'src/main.ts');
/** A path relative to the working directory when it is inside it. */
const shown = (p: string) => (path.relative(process.cwd(), p).startsWith('..') ? p : path.relative(process.cwd(), p));

/** The GETs measured; `{controlId}` is the first control of the list. */
const PATHS = [
  '/healthz',
  '/v1/frameworks',
  '/v1/controls',
  '/v1/controls/{controlId}',
  '/v1/policies',
  '/v1/evidence',
  '/v1/tests',
  '/v1/vulnerabilities?count=100',
];
const wanted = values.paths ? values.paths.split(',') : PATHS;

interface Row {
  engine: string;
  path: string;
  bytes: number;
  service: Measured[];
  raw: Measured[];
}

/** One measurement, with the CPU seconds the server used per request during it. */
type Measured = HttpLoadResult & { cpuPerRequest: number };

const log = (line = '') => console.log(line);
log(
  `Warm reads, service vs raw node:http sending the same bytes, alternated: ${rounds} round(s) of ${seconds} s each ` +
    `(+${warmupSeconds} s warm-up), ${connections} connections, service ${shown(serviceMain)}, load by ${generator === 'wrk' ? `wrk (${threads} thread)` : 'the built-in worker-thread generator (wrk not found)'}; demo scale ${scale}`,
);

async function benchEngine(engine: BenchEngine): Promise<Row[]> {
  const started = performance.now();
  const database = await createBenchDatabase(engine, { scale, tag: 'reads' });
  const rows: Row[] = [];
  const port = await freePort();
  const service = await startChild(
    [serviceMain],
    {
      ...database.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      OPS_PORT: 'off',
      DEMO_ON_EMPTY: 'false',
      RATE_LIMIT_MAX: String(1e9),
      LOG_LEVEL: 'warn',
    },
    port,
  );
  let raw: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const token = await fetchToken(service.url, database.demo.readOnly);
    const headers = { authorization: `Bearer ${token}` };
    const controls = (await (await fetch(`${service.url}/v1/controls`, { headers })).json()) as { data: Array<{ controlId: string }> };
    // What is requested, and the label it is reported under (the template, for a get-one).
    const paths = wanted.map((label) => ({ label, p: label.replace('{controlId}', encodeURIComponent(controls.data[0].controlId)) }));

    // Capture each answer once: the raw server replays these bytes.
    const captureDir = fs.mkdtempSync(path.join(database.env.DATA_DIR, 'answers-'));
    const manifest: Record<string, { status: number; contentType: string; bodyFile: string }> = {};
    for (const [i, { p }] of paths.entries()) {
      const res = await fetch(`${service.url}${p}`, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${body}`);
      const bodyFile = path.join(captureDir, `${i}.body`);
      fs.writeFileSync(bodyFile, body);
      manifest[p] = { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', bodyFile };
    }
    const manifestFile = path.join(captureDir, 'manifest.json');
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    raw = await startChild([path.join(ROOT, 'bench/lib/raw-read-server.ts'), manifestFile], {});
    const n = database.demo.summary;
    log(
      `${database.label}: ${n.frameworks} frameworks, ${n.controls} controls, ${n.policies} policies, ${n.evidence} evidence, ${n.tests} tests, ${n.vulnerabilities} findings (ready in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );

    for (const { label, p } of paths) {
      const row: Row = { engine: database.label, path: label, bytes: fs.statSync(manifest[p].bodyFile).size, service: [], raw: [] };
      for (let round = 0; round < rounds; round++) {
        const load = async (server: { url: string; child: { pid?: number } }): Promise<Measured> => {
          let cpu = 0;
          const result = await measureLoad(
            generator,
            { url: `${server.url}${p}`, headers, connections, seconds, warmupSeconds, threads },
            { before: () => (cpu = cpuSeconds(server.child.pid!)), after: () => (cpu = cpuSeconds(server.child.pid!) - cpu) },
          );
          return { ...result, cpuPerRequest: cpu / Math.max(1, result.requests) };
        };
        row.raw.push(await load(raw));
        row.service.push(await load(service));
      }
      const errors = [...row.service, ...row.raw].reduce((a, r) => a + r.errors, 0);
      if (errors > 0) throw new Error(`GET ${p}: ${errors} answers were errors (not 2xx) during the load`);
      rows.push(row);
      const s = median(row.service.map((r) => r.rps));
      const r = median(row.raw.map((x) => x.rps));
      log(
        `  ${label.padEnd(32)} ${compact(s).padStart(6)} / ${compact(r).padStart(6)} req/s = ${(s / r).toFixed(2)}; CPU ${cpuRatio(row)}`,
      );
    }
  } finally {
    await raw?.stop();
    await service.stop();
    await database.drop();
  }
  return rows;
}

/** The raw server's CPU per request over the service's (medians): near the ratio of req/s on an idle machine. */
function cpuRatio(row: Row): string {
  const ratio = median(row.raw.map((x) => x.cpuPerRequest)) / median(row.service.map((x) => x.cpuPerRequest));
  return Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a';
}

const engines = values.engines.split(',') as BenchEngine[];
const rows: Row[] = [];
const skipped: string[] = [];
for (const engine of engines) {
  if (engine === 'postgres' && !postgresUrl()) {
    skipped.push('PostgreSQL + Redis skipped: set BENCH_DATABASE_URL and BENCH_REDIS_URL (or the TEST_ ones) to run it');
    continue;
  }
  if (engine === 'postgres' && !redisUrl())
    skipped.push('Redis skipped (no BENCH_REDIS_URL/TEST_REDIS_URL): PostgreSQL ran with the in-memory rate limits');
  rows.push(...(await benchEngine(engine)));
}

log();
log(
  formatTable(
    ['GET', 'bytes', 'service req/s', 'raw req/s', 'ratio', 'CPU ratio', 'service p50 ms', 'engine'],
    rows.map((row) => {
      const s = median(row.service.map((r) => r.rps));
      const r = median(row.raw.map((x) => x.rps));
      return [
        row.path,
        sizeOf(row.bytes),
        compact(s),
        compact(r),
        (s / r).toFixed(2),
        cpuRatio(row),
        median(row.service.map((x) => x.p50Ms)).toFixed(2),
        row.engine,
      ];
    }),
    [false, true, true, true, true, true, true, false],
  ),
);
log(
  "ratio: service req/s over raw req/s, median of the rounds. CPU ratio: the raw server's CPU seconds per request over the " +
    "service's, steadier on a shared machine (the database and Redis servers' CPU is not counted).",
);
for (const line of skipped) log(line);
