// GET /v1/vulnerabilities over a million findings: is the last page as cheap as the first?
// Prints, per scenario, p50/p90 latency of the first, a middle and the last page (totalCount
// included) and the ratios to the first page; the cost of an uncached totalCount; and checks that
// walking every page collects exactly totalCount findings in order.
//
//   node bench/vulnerabilities.ts [--scale 2000] [--samples 200] [--data-dir DIR] [--fresh]
//   BENCH_DATABASE_URL=postgres://… node bench/vulnerabilities.ts      (PostgreSQL instead of SQLite)
//
// The data: the demo generator's reference data and findings phases (src/demo) for one
// organization at `--scale` (500 findings per unit: 2000 → 1,000,000 findings with their affected
// resources, custom field values, assignees, tickets and risks). Generating it takes minutes, so
// it is kept and reused by later runs: a SQLite file under --data-dir (default
// $TMPDIR/cds-bench-vulnerabilities) or the PostgreSQL schema cds_bench_vulns_<scale>. --fresh
// regenerates it.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { makeCtx } from '../src/demo/context.ts';
import { DEFAULT_DEMO_NOW, planFor } from '../src/demo/generate.ts';
import { orgTag } from '../src/shared/org-tag.ts';
import { generateReference, referenceUnits } from '../src/demo/reference.ts';
import { generateVulnerabilities } from '../src/demo/vulnerabilities.ts';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { startBenchService } from './lib/bench-service.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { bumpDataVersions } from '../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../src/shared/data-versions.ts';
import { countMatching, loadVulnerabilityCells } from '../src/storage/db/repositories/vulnerabilities/vulnerability-pages.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '2000' },
    samples: { type: 'string', default: '200' },
    'data-dir': { type: 'string', default: path.join(os.tmpdir(), 'cds-bench-vulnerabilities') },
    fresh: { type: 'boolean', default: false },
  },
});
const scale = Number(values.scale);
const samples = Number(values.samples);
const orgName = `Bench vulnerabilities scale ${scale}`;
const expectedFindings = planFor(scale).vulnerabilities;
const log = (line: string) => process.stderr.write(`${line}\n`);

// ---- the database, kept between runs ----
async function openBenchDb(): Promise<{ db: Db; label: string; env: Record<string, string> }> {
  const base = process.env.BENCH_DATABASE_URL;
  if (base) {
    const schema = `cds_bench_vulns_${scale}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    if (values.fresh) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.query(`create schema if not exists ${schema}`);
    await admin.end();
    const url = new URL(base);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      db: openDb({ databaseUrl: url.toString(), poolSize: 10 }),
      label: `PostgreSQL (schema ${schema})`,
      env: { DATABASE_URL: url.toString() },
    };
  }
  fs.mkdirSync(values['data-dir']!, { recursive: true });
  const file = path.join(values['data-dir']!, `vulns-scale-${scale}.sqlite`);
  if (values.fresh) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  return { db: openDb({ sqlitePath: file }), label: `SQLite (${file})`, env: { SQLITE_PATH: file } };
}

const { db, label, env } = await openBenchDb();
await migrateToLatest(db);
const system = { db, region: 'us' as const, now: Date.now };

async function findOrLoadOrganization(): Promise<string> {
  const existing = await db.kysely.selectFrom('organizations').select('id').where('name', '=', orgName).execute();
  for (const org of existing) {
    const row = await db.kysely
      .selectFrom('vulnerabilities')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow();
    if (Number(row.n) === expectedFindings) return org.id;
    log(`dropping incomplete organization ${org.id} (${row.n} findings)`);
    await db.kysely.deleteFrom('organizations').where('id', '=', org.id).execute();
  }
  const org = await createOrganization({ ctx: system, input: { name: orgName } });
  const ctx = makeCtx(db, org.id, 1, DEFAULT_DEMO_NOW, scale, orgTag(org.id));
  ctx.progress.total = referenceUnits(ctx) + ctx.plan.vulnerabilities;
  let lastPct = -1;
  ctx.progress.report = (done, total) => {
    const pct = Math.floor((100 * done) / total);
    if (pct >= lastPct + 5) {
      log(`  generating: ${pct}% (${done}/${total})`);
      lastPct = pct;
    }
  };
  const started = performance.now();
  log(`generating ${expectedFindings} findings with the demo generator (reference data + findings phases)…`);
  await generateReference(ctx);
  await generateVulnerabilities(ctx);
  await ctx.writer.flush();
  await bumpDataVersions(db.kysely, org.id, DATA_KINDS);
  const counts = ctx.writer.counts();
  log(
    `generated in ${((performance.now() - started) / 1000).toFixed(0)} s: ${counts.vulnerabilities} findings, ${counts.vulnerability_resources} affected resources, ${counts.custom_field_values} custom field values, ${counts.subject_people} assignees`,
  );
  if (db.dialect === 'postgres') {
    // fresh statistics and a visibility map, so the planner sees the data and index-only scans work
    for (const table of ['vulnerabilities', 'vulnerability_resources', 'custom_field_values', 'subject_people', 'custom_fields']) {
      await sql`vacuum analyze ${sql.table(table)}`.execute(db.kysely);
    }
  } else {
    await sql`analyze`.execute(db.kysely);
  }
  return org.id;
}

const organizationId = await findOrLoadOrganization();

// ---- the service ----
const service = await startBenchService({ db, env: env, organizationId, system });
const { port, token } = service;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(pathAndQuery: string): Promise<{ ms: number; status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.get({ agent, host: '127.0.0.1', port, path: pathAndQuery, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - start;
        resolve({ ms, status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);
const url = (query: string, cursor?: string | null) =>
  `/v1/vulnerabilities?${query}${cursor ? `&nextCursor=${encodeURIComponent(cursor)}` : ''}`;

interface Walk {
  /** cursors[i] requests page i (cursors[0] is undefined: the first page) */
  cursors: (string | undefined)[];
  collected: number;
  totalCount: number;
  pageP50: number;
  ms: number;
}

/** Walks every page, checking order (firstSeen descending, then ID), uniqueness and totalCount. */
async function walk(query: string): Promise<Walk> {
  const cursors: (string | undefined)[] = [undefined];
  const latencies: number[] = [];
  let collected = 0;
  let totalCount = -1;
  let prev: [number, string] | undefined;
  const started = performance.now();
  for (;;) {
    const res = await get(url(`${query}&fields=firstSeen`, cursors[cursors.length - 1]));
    if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
    latencies.push(res.ms);
    if (totalCount === -1) totalCount = res.body.meta.totalCount;
    for (const v of res.body.data as { firstSeen: number; vulnerabilityId: string }[]) {
      const key: [number, string] = [v.firstSeen, v.vulnerabilityId.replace('%23', '\u0000')];
      if (prev && !(key[0] < prev[0] || (key[0] === prev[0] && key[1] > prev[1]))) throw new Error(`order broken at ${v.vulnerabilityId}`);
      prev = key;
      collected++;
    }
    if (res.body.meta.nextCursor === null) break;
    cursors.push(res.body.meta.nextCursor);
  }
  if (collected !== totalCount) throw new Error(`walk collected ${collected} findings, totalCount says ${totalCount}`);
  return { cursors, collected, totalCount, pageP50: pct(sortNum(latencies), 50), ms: performance.now() - started };
}

interface Scenario {
  name: string;
  query: string;
}

const scenarios: Scenario[] = [
  { name: 'no filter, count=50', query: 'count=50' },
  { name: 'no filter, count=100', query: 'count=100' },
  { name: 'status=open&severity=critical, count=50', query: 'status=open&severity=critical&count=50' },
  {
    name: 'status=open,risk&severity=high,critical&fixAvailable=no, count=100',
    query: 'status=open,risk&severity=high,critical&fixAvailable=no&count=100',
  },
  { name: 'source=api, count=50', query: 'source=api&count=50' },
];

console.log(
  `GET /v1/vulnerabilities — ${label}, demo scale ${scale} (${expectedFindings.toLocaleString('en-US')} findings), ${samples} samples per page, one connection`,
);
const rows: string[] = [];
for (const scenario of scenarios) {
  const w = await walk(scenario.query);
  const pages = w.cursors.length;
  const picks = { first: 0, middle: Math.floor(pages / 2), last: pages - 1 };
  const lat: Record<string, number[]> = { first: [], middle: [], last: [] };
  // warm-up, then interleave so the three pages see the same conditions
  for (let i = 0; i < 10; i++)
    for (const k of Object.keys(picks) as (keyof typeof picks)[]) await get(url(scenario.query, w.cursors[picks[k]]));
  for (let i = 0; i < samples; i++) {
    for (const k of Object.keys(picks) as (keyof typeof picks)[]) {
      const res = await get(url(scenario.query, w.cursors[picks[k]]));
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      lat[k].push(res.ms);
    }
  }
  // uncached totalCount: bump the data version before each request so the count is recomputed
  const cold: Record<string, number[]> = { first: [], last: [] };
  for (let i = 0; i < 15; i++) {
    for (const k of ['first', 'last'] as const) {
      await bumpDataVersions(db.kysely, organizationId, DATA_KINDS);
      cold[k].push((await get(url(scenario.query, w.cursors[picks[k]]))).ms);
    }
  }
  const p = (k: string, q: number) => pct(sortNum(lat[k]), q);
  const c = (k: string) => pct(sortNum(cold[k]), 50);
  console.log(
    `\n${scenario.name}: totalCount ${w.totalCount.toLocaleString('en-US')}, ${pages} pages; full walk ${(w.ms / 1000).toFixed(1)} s, every page collected once in order (page p50 ${w.pageP50.toFixed(2)} ms)`,
  );
  console.log(`  first  page (1)        p50 ${p('first', 50).toFixed(2).padStart(7)} ms   p90 ${p('first', 90).toFixed(2).padStart(7)} ms`);
  console.log(
    `  middle page (${String(picks.middle + 1).padEnd(6)})  p50 ${p('middle', 50).toFixed(2).padStart(7)} ms   p90 ${p('middle', 90).toFixed(2).padStart(7)} ms   ${(p('middle', 50) / p('first', 50)).toFixed(2)}× first`,
  );
  console.log(
    `  last   page (${String(picks.last + 1).padEnd(6)})  p50 ${p('last', 50).toFixed(2).padStart(7)} ms   p90 ${p('last', 90).toFixed(2).padStart(7)} ms   ${(p('last', 50) / p('first', 50)).toFixed(2)}× first`,
  );
  console.log(
    `  totalCount not cached (data version bumped before each request): first page p50 ${c('first').toFixed(2)} ms, last page p50 ${c('last').toFixed(2)} ms (${(c('last') / c('first')).toFixed(2)}×)`,
  );
  rows.push(
    `| ${db.dialect} | ${scenario.name} | ${w.totalCount} | ${p('first', 50).toFixed(2)} | ${p('middle', 50).toFixed(2)} | ${p('last', 50).toFixed(2)} | ${(p('middle', 50) / p('first', 50)).toFixed(2)} | ${(p('last', 50) / p('first', 50)).toFixed(2)} | ${c('first').toFixed(1)} / ${c('last').toFixed(1)} |`,
  );
}

// totalCount alone, uncached (the organization's per-cell counts, summed), for reference
console.log('\ntotalCount alone (median of 5):');
for (const filter of [{}, { statuses: ['open'], severities: ['critical'] }, { sources: ['api'] }]) {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    countMatching(await loadVulnerabilityCells(db.kysely, organizationId), filter);
    times.push(performance.now() - t);
  }
  console.log(`  ${JSON.stringify(filter).padEnd(48)} ${pct(sortNum(times), 50).toFixed(2)} ms`);
}

console.log(
  '\nmarkdown rows: | engine | scenario | totalCount | first p50 ms | middle p50 ms | last p50 ms | middle/first | last/first | uncached count first/last p50 ms |',
);
for (const r of rows) console.log(r);

await service.close();
agent.destroy();
await db.close();
