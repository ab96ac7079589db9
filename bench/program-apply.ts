// Program documents (issue 25): applying the demo organization's export to an empty organization,
// against the demo loader writing the same organization, side by side in one run, on SQLite and
// (when BENCH_DATABASE_URL or TEST_DATABASE_URL is set) PostgreSQL.
//
//   node --expose-gc bench/program-apply.ts [--scale 20] [--plans 5]
//   (--expose-gc: a full collection before each timed phase, so none pays for the garbage of the one before)
//
// Per engine: the demo loader fills organization A (baseline: rows per second, every table it
// writes); A is exported (rows per second of the program's rows, peak memory); the export is
// applied to an empty organization B (rows per second of the rows the apply wrote, ratio to the
// demo loader's, growth of this process's resident memory: the verbs run here as they run in the
// server); the same export is applied again (nothing changes: its time against the first apply's);
// a plan of a one-field change (one control's name) is timed `--plans` times (p50). Each engine
// runs in a child process of its own; memory is the kernel's high-water mark (Linux). The child
// sets the heap's growth as the server does (HEAP_GROWTH_PERCENT, src/heap-growth.ts); each engine
// runs a second time with V8's own factor (HEAP_GROWTH_PERCENT=0), whose growth is printed beside.
// The apply covers the kinds the registry holds (src/domain/program/registry.ts).
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { loadDemoData } from '../src/demo/generate.ts';
import { applyProgram, exportProgram, planProgram } from '../src/domain/program/verbs.ts';
import type { ProgramContext } from '../src/domain/program/program-context.ts';
import { postgresUrl } from './lib/bench-database.ts';
import { loadConfig } from '../src/config.ts';
import { setHeapGrowth } from '../src/heap-growth.ts';
import { formatTable, median } from './lib/table.ts';

const { values } = parseArgs({
  options: { scale: { type: 'string', default: '20' }, plans: { type: 'string', default: '5' }, engine: { type: 'string' } },
});
const scale = Number(values.scale);
const plans = Number(values.plans);
const log = (line: string) => process.stderr.write(`${line}\n`);
const MiB = 1024 * 1024;

/** Tables holding an organization's program rows (everything the demo loader writes but events). */
const TABLES = [
  'people',
  'entities',
  'applications',
  'risks',
  'frameworks',
  'requirements',
  'controls',
  'control_requirements',
  'control_artifacts',
  'artifact_requirements',
  'subject_people',
  'subject_entities',
  'risk_links',
  'tickets',
  'policies',
  'policy_documents',
  'policy_versions',
  'evidence',
  'attachments',
  'evidence_tests',
  'tests',
  'test_applications',
  'test_resources',
  'test_history',
  'vulnerabilities',
  'vulnerability_resources',
  'custom_fields',
  'custom_field_values',
  'program_keys',
] as const;

async function rows(db: Db, org: string): Promise<number> {
  let total = 0;
  for (const table of TABLES) {
    const r = await db.kysely
      .selectFrom(table as 'people')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow();
    total += Number(r.n);
  }
  return total;
}

/** The process's peak resident memory since the last reset (Linux: VmHWM), or undefined elsewhere. */
function highWaterMark(): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` and answers its time and its peak resident memory, and the peak's growth over the
 * start. On Linux the kernel's high-water mark is reset first (/proc/self/clear_refs), so a peak
 * inside synchronous work (node:sqlite runs in this thread) counts; elsewhere, samples every 20 ms.
 */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; peakGrowthMiB: number; peakMiB: number }> {
  const start = process.memoryUsage().rss;
  let exact = false;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    exact = highWaterMark() !== undefined;
  } catch {}
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, exact ? (highWaterMark() ?? 0) : 0);
  return { value, ms, peakGrowthMiB: (peak - start) / MiB, peakMiB: peak / MiB };
}

async function openEngine(engine: 'sqlite' | 'postgres'): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-program-'));
    const db = openDb({ sqlitePath: path.join(dir, 'bench.sqlite') });
    return { db, drop: async () => void fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const base = postgresUrl()!;
  const schema = `cds_bench_program_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const db = openDb({ databaseUrl: url.toString() });
  return {
    db,
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

async function run(engine: 'sqlite' | 'postgres') {
  setHeapGrowth(loadConfig(process.env).heapGrowthPercent);
  const { db, drop } = await openEngine(engine);
  try {
    await migrateToLatest(db);
    const base = { db, region: 'us' as const, now: Date.now };
    const a = await createOrganization({ ctx: base, input: { name: 'Bench A' } });
    log(`${engine}: demo load, scale ${scale}…`);
    const demo = await measured(() => loadDemoData(db, a.id, { scale, seed: 1 }));
    const demoRows = await rows(db, a.id);
    const ctx: ProgramContext = { ...base, stamp: { kind: 'service' } };
    log(`${engine}: export…`);
    const exported = await measured(() => exportProgram({ ctx, input: { organizationId: a.id } }));
    const document = exported.value;
    const b = await createOrganization({ ctx: base, input: { name: 'Bench B' } });
    global.gc?.();
    log(`${engine}: apply to an empty organization…`);
    const first = await measured(() => applyProgram({ ctx, input: { organizationId: b.id, document } }));
    const applyRows = await rows(db, b.id);
    const exportRows =
      applyRows -
      (await db.kysely
        .selectFrom('program_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', b.id)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)));
    log(`${engine}: apply again…`);
    global.gc?.();
    const again = await measured(() => applyProgram({ ctx, input: { organizationId: b.id, document } }));
    if (again.value.changed) throw new Error('the second apply changed something');
    const controls = (document as { controls?: Array<{ name: string }> }).controls ?? [];
    const planTimes: number[] = [];
    if (controls.length > 0) {
      const original = controls[0].name;
      for (let i = 0; i < plans; i++) {
        controls[0].name = `${original} (renamed ${i})`;
        global.gc?.();
        const t0 = performance.now();
        const plan = await planProgram({ ctx, input: { organizationId: b.id, document } });
        planTimes.push(performance.now() - t0);
        if (!plan.changed) throw new Error('the plan found no change');
      }
      controls[0].name = original;
    }
    const perSec = (n: number, ms: number) => Math.round(n / (ms / 1000));
    return {
      engine,
      demoRowsPerSec: perSec(demoRows, demo.ms),
      demoRows,
      exportRowsPerSec: perSec(exportRows, exported.ms),
      exportPeakMiB: exported.peakMiB,
      applyRows,
      applyMs: first.ms,
      applyRowsPerSec: perSec(applyRows, first.ms),
      applyGrowthMiB: first.peakGrowthMiB,
      againMs: again.ms,
      planP50: planTimes.length > 0 ? median(planTimes) : Number.NaN,
    };
  } finally {
    await db.close();
    await drop();
  }
}

// Each engine in a process of its own, so one engine's run does not shape the memory the other's
// grows from.
if (values.engine) {
  process.stdout.write(JSON.stringify(await run(values.engine as 'sqlite' | 'postgres')));
  process.exit(0);
}
const engines: Array<'sqlite' | 'postgres'> = ['sqlite', ...(postgresUrl() ? (['postgres'] as const) : [])];
const child = (engine: string, env: NodeJS.ProcessEnv, planRuns: number): Awaited<ReturnType<typeof run>> => {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--engine', engine, '--scale', String(scale), '--plans', String(planRuns)],
    { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20, env },
  );
  return JSON.parse(out.toString('utf8'));
};
const results: Array<Awaited<ReturnType<typeof run>> & { v8GrowthMiB: number }> = [];
for (const engine of engines) {
  const served = child(engine, process.env, plans);
  log(`${engine}: again with V8's own heap growth (HEAP_GROWTH_PERCENT=0)…`);
  const own = child(engine, { ...process.env, HEAP_GROWTH_PERCENT: '0' }, 0);
  results.push({ ...served, v8GrowthMiB: own.applyGrowthMiB });
}
const growth = loadConfig(process.env).heapGrowthPercent;
console.log(
  `Program documents, scale ${scale} (rows: every program table of the organization; heap growth ${growth === 0 ? "V8's own" : `${growth}%`} as the server's HEAP_GROWTH_PERCENT)\n`,
);
console.log(
  formatTable(
    [
      'engine',
      'demo rows/s',
      'apply rows/s',
      'ratio',
      'apply s',
      'RSS growth MiB',
      "… V8's own growth",
      're-apply s',
      're-apply/apply',
      'plan p50 ms',
      'export rows/s',
      'export peak MiB',
    ],
    results.map((r) => [
      r.engine,
      String(r.demoRowsPerSec),
      String(r.applyRowsPerSec),
      (r.applyRowsPerSec / r.demoRowsPerSec).toFixed(2),
      (r.applyMs / 1000).toFixed(1),
      r.applyGrowthMiB.toFixed(0),
      r.v8GrowthMiB.toFixed(0),
      (r.againMs / 1000).toFixed(2),
      (r.againMs / r.applyMs).toFixed(2),
      r.planP50.toFixed(0),
      String(r.exportRowsPerSec),
      r.exportPeakMiB.toFixed(0),
    ]),
    [false, true, true, true, true, true, true, true, true, true, true, true],
  ),
);
console.log(`\n(apply wrote ${results.map((r) => `${r.engine}: ${r.applyRows} rows of the demo's ${r.demoRows}`).join('; ')})`);
