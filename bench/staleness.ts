// Time making evidence stale at scale on PostgreSQL (issue 26): 1,000 evidence records whose
// period ends at the same instant, each linked to a control (so every batch also computes its
// control and framework events), processed by the time schedulers of real server processes
// (src/main.ts) sharing the database: with one node and with two, side by side in the same run.
// Two layouts: the 1,000 records in one organization (its work is done one transaction at a time,
// TIME_BATCH_SIZE records each, whoever holds the organization), and spread over 10
// organizations of 100 (the nodes can work on different organizations at once).
// The figure is the time from the due instant to the moment this process sees the last record
// moved (polled every 10 ms), so it includes the scheduler's wake-up. Each run also checks that
// exactly 1,000 evidence.status_changed events were recorded (no record done twice).
//
//   TEST_DATABASE_URL=postgres://… node bench/staleness.ts [--runs 3] [--count 1000]
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { freePort, ROOT, startChild, type Child } from './lib/child.ts';
import { formatTable, median } from './lib/table.ts';
import { postgresUrl } from './lib/bench-database.ts';
import { moveDueTime, seedStaleEvidence } from '../test/harness/time-due.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, count: { type: 'string', default: '1000' } } });
const RUNS = Number(values.runs);
const COUNT = Number(values.count);
const base = postgresUrl();
if (!base) {
  console.error('staleness measures PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  process.exit(64);
}

const schema = `cds_bench_time_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const databaseUrl = url.toString();
const db = openDb({ databaseUrl });
await migrateToLatest(db);
const ctx = { db, region: 'us' as const, now: Date.now };

process.once('SIGTERM', () => process.exit(143));
process.once('SIGINT', () => process.exit(130));

async function startNode(): Promise<Child> {
  const port = await freePort();
  return startChild(
    [path.join(ROOT, 'src/main.ts')],
    {
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      OPS_PORT: 'off',
      DEMO_ON_EMPTY: 'false',
      LOG_LEVEL: 'warn',
      WEBHOOK_DELIVERY: 'off',
      TIME_SCHEDULER: 'on',
    },
    port,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seeds `orgs` organizations sharing COUNT records due at one instant, waits for them all, returns ms from due to done. */
async function run(orgs: number): Promise<number> {
  // seeded due an hour ahead, then all moved to one instant shortly ahead (the nodes see it at their next poll)
  const ids: string[] = [];
  for (let o = 0; o < orgs; o++) {
    const org = (await createOrganization({ ctx, input: { name: `Stale ${o}` } })).id;
    await seedStaleEvidence(db, org, { count: COUNT / orgs, dueAt: Date.now() + 3_600_000, controls: 10 });
    ids.push(org);
  }
  const dueAt = Date.now() + 2500;
  await moveDueTime(db, ids, dueAt);
  let doneAt = 0;
  for (;;) {
    const { rows } = await admin.query(
      `select count(*)::int as n from ${schema}.evidence where organization_id = any($1) and status = 'needs_attention'`,
      [ids],
    );
    if (rows[0].n === COUNT) {
      doneAt = Date.now();
      break;
    }
    if (Date.now() > dueAt + 120_000) throw new Error(`only ${rows[0].n} of ${COUNT} moved`);
    await sleep(10);
  }
  const { rows } = await admin.query(
    `select count(*)::int as n from ${schema}.events where organization_id = any($1) and type = 'evidence.status_changed'`,
    [ids],
  );
  if (rows[0].n !== COUNT) throw new Error(`${rows[0].n} evidence.status_changed events for ${COUNT} records`);
  return doneAt - dueAt;
}

const results: Record<string, number[]> = {};
for (const nodeCount of [1, 2]) {
  const nodes: Child[] = [];
  for (let i = 0; i < nodeCount; i++) nodes.push(await startNode());
  for (const orgs of [1, 10]) {
    const key = `${nodeCount}:${orgs}`;
    results[key] = [];
    for (let r = 0; r < RUNS; r++) results[key].push(await run(orgs));
  }
  await Promise.all(nodes.map((n) => n.stop()));
}

const rows = [1, 10].map((orgs) => {
  const one = median(results[`1:${orgs}`]);
  const two = median(results[`2:${orgs}`]);
  return [
    orgs === 1 ? `${COUNT} records, 1 organization` : `${COUNT} records, ${orgs} organizations`,
    `${one.toFixed(0)} ms`,
    `${two.toFixed(0)} ms`,
    `${(two / one).toFixed(2)}×`,
  ];
});
console.log(`\nStale at the same instant, due → all moved (median of ${RUNS}; PostgreSQL, real server processes)\n`);
console.log(formatTable(['layout', '1 node', '2 nodes', '2 nodes / 1 node'], rows, [false, true, true, true]));
console.log(`\nruns (ms): ${JSON.stringify(results)}`);

await db.close();
await admin.query(`drop schema ${schema} cascade`);
await admin.end();
