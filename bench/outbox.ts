// What the events outbox (issue 15) adds to a write: p50/p99 latency of a vulnerability PATCH, of an
// evidence upload that changes no status, and of an upload that flips the evidence (and so may flip
// controls and framework progress: the computed events' diff runs), with events recorded and
// without, side by side in one run on the demo organization.
//
//   node bench/outbox.ts [--rounds 10] [--per-round 20] [--scale 1]
//   BENCH_DATABASE_URL=postgres://… node bench/outbox.ts      (PostgreSQL too, besides SQLite)
//
// Baseline: the same service in the same process, with recordEvents switched off by its bench-only
// switch (setEventRecordingForBench in src/domain/events/record.ts), so both sides run the same code
// and the same database, and differ only in the outbox's work: the event numbers' UPDATE, the
// events' INSERT, building the payloads, the vulnerability's `before` read and the computed diff.
// Rounds alternate between the two modes (on, off, on, off…) so drift on a shared machine falls on
// both. Each request is sent alone (one at a time); requests of the flip scenario reset the
// evidence record's status before the clock starts.
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { setEventRecordingForBench } from '../src/domain/events/record.ts';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { bumpDataVersions } from '../src/storage/db/repositories/organizations/organizations.ts';
import { createBenchDatabase, fetchToken, postgresUrl, type BenchEngine } from './lib/bench-database.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    'per-round': { type: 'string', default: '20' },
    scale: { type: 'string', default: '1' },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);
const scale = Number(values.scale);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Scenario {
  name: string;
  /** runs before the clock starts */
  prepare?: () => Promise<void>;
  send: (i: number) => Promise<Response>;
  expect: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(scenario: Scenario, mode: boolean, into: number[], seq: { i: number }) {
  setEventRecordingForBench(mode);
  for (let n = 0; n < perRound; n++) {
    await scenario.prepare?.();
    const started = performance.now();
    const res = await scenario.send(seq.i++);
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== scenario.expect) throw new Error(`${scenario.name}: ${res.status}`);
    into.push(ms);
  }
}

async function benchEngine(engine: BenchEngine) {
  log(`${engine}: loading the demo organization (scale ${scale})…`);
  const bench = await createBenchDatabase(engine, { scale, tag: 'outbox' });
  const db: Db = openDb(engine === 'postgres' ? { databaseUrl: bench.env.DATABASE_URL } : { sqlitePath: bench.env.SQLITE_PATH });
  const config = loadConfig({ ...bench.env, RATE_LIMIT_MAX: String(1e9), LOG_LEVEL: 'silent' });
  const store = new MemoryRateLimitStore();
  const app = await buildApp(config, { db, rateLimitStore: store, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const org = bench.demo.organization.id;
  const token = await fetchToken(base, bench.demo.readWrite);
  const auth = { authorization: `Bearer ${token}` };
  try {
    const finding = await db.kysely
      .selectFrom('vulnerabilities')
      .select(['source', 'finding_key'])
      .where('organization_id', '=', org)
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const findingId = `${finding.source}%23${encodeURIComponent(finding.finding_key)}`;
    // An evidence record linked to a control mapped to a framework, without approvers, so an upload
    // makes it `uploaded` and the computed diff has controls and frameworks to look at.
    const linked = await db.kysely
      .selectFrom('evidence as e')
      .innerJoin('control_artifacts as ca', (j) => j.onRef('ca.artifact_id', '=', 'e.id').on('ca.artifact_type', '=', 'evidence'))
      .select('e.id')
      .where('e.organization_id', '=', org)
      .where('e.is_relevant', '=', true)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('subject_people as sp')
              .select('sp.subject_id')
              .whereRef('sp.subject_id', '=', 'e.id')
              .where('sp.subject_type', '=', 'evidence')
              .where('sp.role', '=', 'approver'),
          ),
        ),
      )
      .orderBy('e.id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const evidenceId = linked.id;
    const upload = (i: number) => {
      const form = new FormData();
      form.append('evidenceDate', String(Date.now() - 60_000));
      form.append('files', new Blob([new TextEncoder().encode(`outbox bench ${i}\n`.repeat(64))]), 'bench.txt');
      return fetch(`${base}/v1/evidence/${evidenceId}/attachments`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': `outbox-${engine}-${Date.now()}-${i}` },
        body: form,
      });
    };
    const scenarios: Scenario[] = [
      {
        name: 'PATCH /v1/vulnerabilities/{id}',
        expect: 200,
        send: (i) =>
          fetch(`${base}/v1/vulnerabilities/${findingId}`, {
            method: 'PATCH',
            headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `outbox-${engine}-patch-${Date.now()}-${i}` },
            body: JSON.stringify({ reportLink: `https://example.com/report/${i}` }),
          }),
      },
      { name: 'upload, no status change', expect: 201, send: upload },
      {
        name: 'upload that flips the evidence',
        expect: 201,
        prepare: async () => {
          await db.kysely.updateTable('evidence').set({ status: 'needs_attention' }).where('id', '=', evidenceId).execute();
          await bumpDataVersions(db.kysely, org, ['evidence']);
        },
        send: upload,
      },
    ];
    const rows: string[][] = [];
    const seq = { i: 0 };
    for (const scenario of scenarios) {
      const on: number[] = [];
      const off: number[] = [];
      // warm-up, both modes
      await measure(scenario, true, [], seq);
      await measure(scenario, false, [], seq);
      for (let r = 0; r < rounds; r++) {
        if (r % 2 === 0) {
          await measure(scenario, true, on, seq);
          await measure(scenario, false, off, seq);
        } else {
          await measure(scenario, false, off, seq);
          await measure(scenario, true, on, seq);
        }
      }
      on.sort((a, b) => a - b);
      off.sort((a, b) => a - b);
      const f = (ms: number) => ms.toFixed(2);
      rows.push([
        bench.label,
        scenario.name,
        f(percentile(off, 50)),
        f(percentile(on, 50)),
        `${(percentile(on, 50) / percentile(off, 50)).toFixed(2)}×`,
        f(percentile(off, 99)),
        f(percentile(on, 99)),
        `${(percentile(on, 99) / percentile(off, 99)).toFixed(2)}×`,
        String(on.length),
      ]);
      log(`${engine}: ${scenario.name} done`);
    }
    const events = await db.kysely
      .selectFrom('events')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
      .where('organization_id', '=', org)
      .groupBy('type')
      .execute();
    log(`${engine}: events recorded during the run: ${events.map((e) => `${e.type} ${e.n}`).join(', ')}`);
    return rows;
  } finally {
    setEventRecordingForBench(true);
    await app.close();
    await store.close();
    await db.close();
    await bench.drop();
  }
}

const engines: BenchEngine[] = postgresUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
const rows: string[][] = [];
for (const engine of engines) rows.push(...(await benchEngine(engine)));
console.log(`\nThe outbox's cost per write: ${rounds} alternating rounds of ${perRound} requests per mode, one request at a time (ms)\n`);
console.log(
  formatTable(['engine', 'write', 'p50 without', 'p50 with', 'ratio', 'p99 without', 'p99 with', 'ratio', 'samples'], rows, [
    false,
    false,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
  ]),
);
