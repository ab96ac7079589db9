// Memory over many organizations: does a node stay within its cache bounds plus its baseline when
// 1,000 organizations, each with its own credential, read every list? The service is src/main.ts
// in its own process, on a SQLite file holding `--organizations` organizations of demo data at
// `--scale` each; every organization takes a token and reads every list (each answer computed,
// its result and its bytes kept by the caches), and the whole round is repeated. It runs twice on
// the same data: first with both caches off (RESULT_CACHE_MAX_OBJECT_BYTES=0,
// RESULT_CACHE_MAX_BYTES=0), whose peak is the process's baseline under that traffic (code,
// connections, the garbage the answers leave between collections); then with the bounds given.
// The process's resident memory (VmRSS, and its peak VmHWM, from /proc) is reported every 250
// organizations beside what the caches say they hold (cds_result_cache_bytes,
// cds_answer_cache_bytes) and the V8 heap in use, then the service's CPU over the rounds (what
// keeping and dropping entries costs); the last line compares the peaks.
//
//   node bench/memory.ts [--organizations 1000] [--scale 0.2] [--rounds 2]
//                        [--object-bytes 67108864] [--answer-bytes 67108864] [--service DIR]
//
// --object-bytes and --answer-bytes set RESULT_CACHE_MAX_OBJECT_BYTES and RESULT_CACHE_MAX_BYTES;
// --service runs src/main.ts of another checkout on the same data, which this checkout migrates:
// that checkout must know every migration this one has. To compare with an older checkout, run
// that checkout's copy of this file instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { createCredential } from '../src/domain/auth/create-credential.ts';
import { loadDemoData } from '../src/demo/generate.ts';
import { bumpDataVersions } from '../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../src/shared/data-versions.ts';
import { operatorActor } from '../src/operator-actor.ts';
import { fetchToken } from './lib/bench-database.ts';
import { freePort, ROOT, startChild } from './lib/child.ts';
import { cpuSeconds } from './lib/cpu.ts';

const { values } = parseArgs({
  options: {
    organizations: { type: 'string', default: '1000' },
    scale: { type: 'string', default: '0.2' },
    rounds: { type: 'string', default: '2' },
    'object-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
    'answer-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
    service: { type: 'string' },
  },
});
const organizations = Number(values.organizations);
const scale = Number(values.scale);
const rounds = Number(values.rounds);
const objectBytes = Number(values['object-bytes']);
const answerBytes = Number(values['answer-bytes']);
const serviceMain = path.join(values.service ? path.resolve(values.service) : ROOT, 'src/main.ts');
const log = (line: string) => process.stderr.write(`${line}\n`);
const MiB = 1024 * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

const LISTS = [
  '/v1/frameworks',
  '/v1/controls',
  '/v1/policies',
  '/v1/evidence',
  '/v1/tests',
  '/v1/vulnerabilities',
  '/v1/vulnerabilities?count=100&fields=cvssScore,resourcesCount,firstSeen',
];

// ---- the data: organizations of demo data, each with its own credential ----
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-memory-'));
const sqlitePath = path.join(dir, 'bench.sqlite');
const db = openDb({ sqlitePath });
await migrateToLatest(db);
const credentials: { clientId: string; clientSecret: string }[] = [];
const started = performance.now();
for (let i = 0; i < organizations; i++) {
  const ctx = { db, region: 'us' as const, now: Date.now };
  const org = await createOrganization({ ctx, input: { name: `Memory ${i}` } });
  await loadDemoData(db, org.id, { scale, seed: i + 1 });
  await bumpDataVersions(db.kysely, org.id, DATA_KINDS);
  const admin = { ...ctx, actor: { ...operatorActor('bench'), organizationId: org.id } };
  credentials.push(await createCredential({ ctx: admin, input: { accessLevel: 'read_only', name: 'bench' } }));
}
await db.close();
log(`${organizations} organizations at demo scale ${scale} loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);

// ---- the service ----
const port = await freePort();
const opsPort = await freePort();
let pid = 0;
/** VmRSS and VmHWM (peak) of the service, in bytes. */
function rss(): { now: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}

/** A gauge of the operations listener (NaN when the service has none, as an older checkout may not). */
async function gauge(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

async function readAll(url: string, token: string): Promise<number> {
  let bytes = 0;
  for (const list of LISTS) {
    const res = await fetch(`${url}${list}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${list}: ${res.status} ${Buffer.from(body).toString()}`);
    bytes += body.byteLength;
  }
  return bytes;
}

async function measure(objects: number, answers: number): Promise<{ idle: number; peak: number; cpu: number }> {
  const service = await startChild(
    [serviceMain],
    {
      SQLITE_PATH: sqlitePath,
      BLOB_DIR: path.join(dir, 'blobs'),
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      OPS_PORT: String(opsPort),
      RATE_LIMIT_MAX: String(1e9),
      LOG_LEVEL: 'warn',
      RESULT_CACHE_MAX_OBJECT_BYTES: String(objects),
      RESULT_CACHE_MAX_BYTES: String(answers),
    },
    port,
  );
  pid = service.child.pid!;
  try {
    const url = `http://127.0.0.1:${port}`;
    const tokens: string[] = [];
    for (const c of credentials) tokens.push(await fetchToken(url, c));
    // idle: the process after one organization's reads compiled the code paths
    await readAll(url, tokens[0]);
    await readAll(url, tokens[0]);
    const idle = rss().now;
    const idleHeap = await gauge('nodejs_heap_size_used_bytes');
    const cpuBefore = cpuSeconds(pid);
    console.log(
      `  RESULT_CACHE_MAX_OBJECT_BYTES ${mib(objects)}, RESULT_CACHE_MAX_BYTES ${mib(answers)}: idle RSS ${mib(idle)}, V8 heap used ${mib(await gauge('nodejs_heap_size_used_bytes'))}`,
    );
    for (let round = 1; round <= rounds; round++) {
      for (const [i, token] of tokens.entries()) {
        await readAll(url, token);
        if ((i + 1) % 250 === 0 || i === tokens.length - 1) {
          const { now, peak } = rss();
          const held = await gauge('cds_result_cache_bytes');
          const kept = await gauge('cds_answer_cache_bytes');
          const heap = await gauge('nodejs_heap_size_used_bytes');
          const external = await gauge('nodejs_external_memory_bytes');
          console.log(
            `    round ${round}, ${String(i + 1).padStart(4)} organizations: RSS ${mib(now).padStart(10)} (peak ${mib(peak)})   ` +
              `results held ${Number.isNaN(held) ? 'n/a' : mib(held)}, answers held ${mib(kept)}; V8 heap used ${mib(heap)}, external ${mib(external)}`,
          );
        }
      }
    }
    const cpu = cpuSeconds(pid) - cpuBefore;
    // Per organization: what each one that authenticated and read its lists added to the process
    // (the V8 heap in use includes garbage not yet collected, so it bounds the live heap from above).
    const grown = rss().now - idle;
    const heapGrown = (await gauge('nodejs_heap_size_used_bytes')) - idleHeap;
    console.log(
      `    per organization: RSS +${(grown / 1024 / tokens.length).toFixed(1)} KiB, V8 heap used +${(heapGrown / 1024 / tokens.length).toFixed(1)} KiB; ` +
        `cached grants ${await gauge('cds_cache_entries{cache="grants"}')}, warm answers ${await gauge('cds_cache_entries{cache="warm_reads"}')}`,
    );
    console.log(
      `    the service's CPU over the rounds: ${cpu.toFixed(1)} s (${((cpu * 1000) / (rounds * tokens.length * LISTS.length)).toFixed(2)} ms per request)`,
    );
    return { idle, peak: rss().peak, cpu };
  } finally {
    await service.stop();
  }
}

try {
  console.log(
    `Memory: ${organizations} organizations (demo scale ${scale}), each with its own token, reading ${LISTS.length} lists, ${rounds} rounds; service ${path.relative(process.cwd(), serviceMain) || serviceMain}`,
  );
  const off = await measure(0, 0);
  const on = await measure(objectBytes, answerBytes);
  const bounds = objectBytes + answerBytes;
  console.log(
    `  peak RSS with the caches off ${mib(off.peak)} (the baseline), with them on ${mib(on.peak)}: ${mib(on.peak - off.peak)} more, ` +
      `for bounds of ${mib(bounds)} (${on.peak - off.peak <= bounds ? 'within' : 'OVER'}); over the idle process: ${mib(on.peak - on.idle)}`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
