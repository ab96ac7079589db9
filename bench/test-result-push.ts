// A pushed test result that flips a control (POST /v1/tests/{testId}/results), next to an evidence
// upload that flips its record, on the scale-20 demo organization: p50/p99 per request on SQLite
// and PostgreSQL, side by side in one run.
//
//   node bench/test-result-push.ts [--rounds 10] [--per-round 20] [--scale 20]
//   BENCH_DATABASE_URL=postgres://… node bench/test-result-push.ts     (PostgreSQL too, besides SQLite)
//
// Scenarios, each request sent alone (one at a time):
// - push that flips a control: a test that is the one incomplete artifact of a control; the pushes
//   alternate passing / fix_required, so every one moves the test, the control (compliant ↔
//   non_compliant) and the frameworks' progress, and records test.status_changed,
//   control.status_changed and framework.progress_changed;
// - the same with 1,000 resources (replaced by every push);
// - baseline: an evidence upload (one small file) that flips its record to `uploaded`, with its
//   computed control and framework events; the record's status is reset before the clock starts.
// Rounds alternate the scenarios' order so drift on a shared machine falls on all of them; the
// ratio column is each p50/p99 over the upload's.
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { bumpDataVersions } from '../src/storage/db/repositories/organizations/organizations.ts';
import { createBenchDatabase, fetchToken, postgresUrl, type BenchEngine } from './lib/bench-database.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    'per-round': { type: 'string', default: '20' },
    scale: { type: 'string', default: '20' },
    /** sqlite, postgres, or both (the default: both when a PostgreSQL URL is set) */
    engine: { type: 'string' },
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
  /** checks the answer (after the clock stopped) */
  check?: (body: any, i: number) => void;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(scenario: Scenario, into: number[], seq: { i: number }) {
  for (let n = 0; n < perRound; n++) {
    await scenario.prepare?.();
    const i = seq.i++;
    const started = performance.now();
    const res = await scenario.send(i);
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== scenario.expect) throw new Error(`${scenario.name}: ${res.status} ${text.slice(0, 300)}`);
    scenario.check?.(JSON.parse(text), i);
    into.push(ms);
  }
}

/**
 * A control with exactly one incomplete relevant artifact, an automated test without a failing
 * integration, and the test: pushing passing makes the control compliant, fix_required makes it
 * non-compliant again.
 */
async function flippableTest(db: Db, org: string, exceptControls = new Set<string>()): Promise<{ testId: string; controlId: string }> {
  const k = db.kysely;
  const [links, policies, evidence, tests, outOfScope] = await Promise.all([
    k.selectFrom('control_artifacts').select(['control_id', 'artifact_type', 'artifact_id']).where('organization_id', '=', org).execute(),
    k.selectFrom('policies').select(['id', 'status', 'is_relevant']).where('organization_id', '=', org).execute(),
    k.selectFrom('evidence').select(['id', 'status', 'is_relevant']).where('organization_id', '=', org).execute(),
    k.selectFrom('tests').select(['id', 'result', 'integration_failing']).where('organization_id', '=', org).execute(),
    k.selectFrom('controls').select('id').where('organization_id', '=', org).where('scope', '=', 'out_of_scope').execute(),
  ]);
  const state = new Map<string, { relevant: boolean; complete: boolean; flippableTest: boolean }>();
  for (const p of policies)
    state.set(`policy:${p.id}`, { relevant: Boolean(p.is_relevant), complete: p.status === 'published', flippableTest: false });
  for (const e of evidence)
    state.set(`evidence:${e.id}`, { relevant: Boolean(e.is_relevant), complete: e.status === 'uploaded', flippableTest: false });
  for (const t of tests) {
    state.set(`test:${t.id}`, {
      relevant: t.result !== 'ignored',
      complete: t.result === 'passing' && !t.integration_failing,
      flippableTest: t.result !== 'ignored' && !t.integration_failing,
    });
  }
  const skip = new Set(outOfScope.map((c) => c.id));
  const byControl = new Map<string, string[]>();
  for (const l of links) {
    if (skip.has(l.control_id)) continue;
    let list = byControl.get(l.control_id);
    if (!list) byControl.set(l.control_id, (list = []));
    list.push(`${l.artifact_type}:${l.artifact_id}`);
  }
  for (const [controlId, keys] of [...byControl].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (exceptControls.has(controlId)) continue;
    for (const candidate of keys.filter((key) => key.startsWith('test:') && state.get(key)?.flippableTest)) {
      const others = keys.filter((key) => key !== candidate).map((key) => state.get(key)!);
      if (others.every((s) => !s.relevant || s.complete)) return { testId: candidate.slice(5), controlId };
    }
  }
  throw new Error('no control whose only incomplete artifact is a test');
}

async function benchEngine(engine: BenchEngine) {
  log(`${engine}: loading the demo organization (scale ${scale})…`);
  const bench = await createBenchDatabase(engine, { scale, tag: 'testpush' });
  const db: Db = openDb(engine === 'postgres' ? { databaseUrl: bench.env.DATABASE_URL } : { sqlitePath: bench.env.SQLITE_PATH });
  // The scale-20 demo's attachments already pass the default 10 GiB quota: lift it, as bench/controls.ts does.
  const config = loadConfig({ ...bench.env, RATE_LIMIT_MAX: String(1e9), LOG_LEVEL: 'silent', ATTACHMENT_QUOTA_BYTES: String(2 ** 50) });
  const store = new MemoryRateLimitStore();
  const app = await buildApp(config, { db, rateLimitStore: store, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const org = bench.demo.organization.id;
  const token = await fetchToken(base, bench.demo.readWrite);
  const auth = { authorization: `Bearer ${token}` };
  try {
    const { testId, controlId } = await flippableTest(db, org);
    // The 1,000-resource test flips another control, none of whose artifacts is the first test's.
    const controlsOf = async (type: 'test' | 'evidence', id: string) =>
      (
        await db.kysely
          .selectFrom('control_artifacts')
          .select('control_id')
          .where('artifact_type', '=', type)
          .where('artifact_id', '=', id)
          .execute()
      ).map((r) => r.control_id);
    const taken = new Set(await controlsOf('test', testId));
    const bigTest = (await flippableTest(db, org, taken)).testId;
    for (const id of await controlsOf('test', bigTest)) taken.add(id);
    log(`${engine}: test ${testId} flips control ${controlId}`);
    // An evidence record linked to a control, without approvers: an upload makes it `uploaded`.
    const linked = await db.kysely
      .selectFrom('evidence as e')
      .innerJoin('control_artifacts as ca', (j) => j.onRef('ca.artifact_id', '=', 'e.id').on('ca.artifact_type', '=', 'evidence'))
      .select('e.id')
      .where('e.organization_id', '=', org)
      .where('e.is_relevant', '=', true)
      // not an artifact of the tests' controls: resetting it would keep them from flipping
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('control_artifacts as other')
              .select('other.control_id')
              .whereRef('other.artifact_id', '=', 'e.id')
              .where('other.artifact_type', '=', 'evidence')
              .where('other.control_id', 'in', [...taken]),
          ),
        ),
      )
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
    const statusOf = (i: number) => (i % 2 === 0 ? 'passing' : 'fix_required');
    const push = (id: string, resources: (i: number) => unknown[] | undefined) => (i: number) =>
      fetch(`${base}/v1/tests/${id}/results`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `push-${engine}-${Date.now()}-${i}` },
        body: JSON.stringify({ status: statusOf(i), resources: resources(i) }),
      });
    const thousand = (i: number) =>
      Array.from({ length: 1000 }, (_, n) => ({
        resourceId: `arn:aws:s3:::bench-bucket-${n}`,
        name: `bench-bucket-${n}`,
        status: (n + i) % 10 === 0 ? 'fix_required' : 'passing',
        region: 'eu-west-1',
        service: 's3',
        accountID: '123456789012',
        tags: ['bench'],
      }));
    const scenarios: Scenario[] = [
      {
        name: 'evidence upload that flips the record (baseline)',
        expect: 201,
        prepare: async () => {
          await db.kysely.updateTable('evidence').set({ status: 'needs_attention' }).where('id', '=', evidenceId).execute();
          await bumpDataVersions(db.kysely, org, ['evidence']);
        },
        send: (i) => {
          const form = new FormData();
          form.append('evidenceDate', String(Date.now() - 60_000));
          form.append('files', new Blob([new TextEncoder().encode(`push bench ${i}\n`.repeat(64))]), 'bench.txt');
          return fetch(`${base}/v1/evidence/${evidenceId}/attachments`, {
            method: 'POST',
            headers: { ...auth, 'idempotency-key': `upload-${engine}-${Date.now()}-${i}` },
            body: form,
          });
        },
      },
      {
        name: 'test-result push that flips a control',
        expect: 200,
        send: push(testId, () => undefined),
        check: (body, i) => {
          if (body.data.status !== statusOf(i)) throw new Error(`push: status ${body.data.status}`);
        },
      },
      {
        name: 'the same push with 1,000 resources',
        expect: 200,
        send: push(bigTest, thousand),
      },
    ];
    // Each scenario's pushes must alternate the status: start every test from fix_required.
    await db.kysely.updateTable('tests').set({ result: 'fix_required' }).where('id', 'in', [testId, bigTest]).execute();
    await bumpDataVersions(db.kysely, org, ['tests']);
    const samples = scenarios.map(() => [] as number[]);
    const seqs = scenarios.map(() => ({ i: 0 }));
    // warm-up
    for (const [n, s] of scenarios.entries()) await measure(s, [], seqs[n]);
    for (let r = 0; r < rounds; r++) {
      const order = scenarios.map((_, n) => n);
      if (r % 2 === 1) order.reverse();
      for (const n of order) await measure(scenarios[n], samples[n], seqs[n]);
    }
    const controlEvents = await db.kysely
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', org)
      .where('type', '=', 'control.status_changed')
      .where('resource_id', '=', controlId)
      .executeTakeFirstOrThrow();
    log(`${engine}: control.status_changed events of ${controlId}: ${controlEvents.n}`);
    if (Number(controlEvents.n) < perRound * (rounds + 1)) throw new Error('the pushes did not all flip the control');
    for (const s of samples) s.sort((a, b) => a - b);
    const [upload] = samples;
    const f = (ms: number) => ms.toFixed(2);
    return scenarios.map((scenario, n) => [
      bench.label,
      scenario.name,
      f(percentile(samples[n], 50)),
      `${(percentile(samples[n], 50) / percentile(upload, 50)).toFixed(2)}×`,
      f(percentile(samples[n], 99)),
      `${(percentile(samples[n], 99) / percentile(upload, 99)).toFixed(2)}×`,
      String(samples[n].length),
    ]);
  } finally {
    await app.close();
    await store.close();
    await db.close();
    await bench.drop();
  }
}

const engines: BenchEngine[] =
  values.engine === 'sqlite' || values.engine === 'postgres' ? [values.engine] : postgresUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
const rows: string[][] = [];
for (const engine of engines) rows.push(...(await benchEngine(engine)));
console.log(
  `\nA test-result push that flips a control, next to an evidence upload, scale-${scale} demo: ${rounds} alternating rounds of ${perRound} requests, one at a time (ms)\n`,
);
console.log(
  formatTable(['engine', 'write', 'p50', 'vs upload', 'p99', 'vs upload', 'samples'], rows, [false, false, true, true, true, true, true]),
);
