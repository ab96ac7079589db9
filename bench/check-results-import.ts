// Checkers' reports as test runs (issue 38): a Prowler OCSF report of 50,000 check results (100
// checks × 500 buckets, each check a test's) and a policy report of 10,000 resources (one rule, one
// test) imported through POST /v1/tests/results/imports into an organization holding the scale-1
// demo, then imported again unchanged (which must take at most a tenth of the first time: nothing
// is written); against the scanner import of as many SARIF findings on the same service. Results
// per second are the report's results over the import's time, as the answer arrives.
//
//   node bench/check-results-import.ts [--engines sqlite,postgres] [--prowler-checks 100] [--prowler-resources 500] [--policy 10000]
//
// PostgreSQL runs when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set; otherwise it is skipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchDatabase, fetchToken, importServiceEnv, rowsOnEngines, type BenchEngine } from './lib/bench-database.ts';
import { freePort, ROOT, startChild, type Child } from './lib/child.ts';
import { writeSarif } from './lib/sarif.ts';
import { writePolicyReport, writeProwler } from './lib/check-reports.ts';
import { formatTable, sizeOf } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    'prowler-checks': { type: 'string', default: '100' },
    'prowler-resources': { type: 'string', default: '500' },
    policy: { type: 'string', default: '10000' },
  },
});
const checks = Number(values['prowler-checks']);
const perCheck = Number(values['prowler-resources']);
const prowlerResults = checks * perCheck;
const policyResults = Number(values.policy);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-checks-'));
let keys = 0;
const key = () => `bench-checks-${Date.now()}-${++keys}`;

/** The program: a SOC 2 control whose tests are the Prowler checks, and one test of the policy rule. */
const program = () => ({
  version: 1,
  frameworks: [{ key: 'bench-soc2', name: 'Bench SOC 2', requirements: [{ key: 'CC6.1', code: 'CC6.1', name: 'Logical access' }] }],
  controls: [
    {
      key: 'bench-encryption',
      code: 'BENCH-1',
      name: 'Bench encryption',
      domain: 'Bench',
      functionGrouping: 'protect',
      requirements: ['bench-soc2/CC6.1'],
    },
  ],
  tests: [
    ...Array.from({ length: checks }, (_, i) => ({
      key: `bench_prowler_${i}`,
      name: `Bench Prowler check ${i}`,
      checks: [`prowler:bench_check_${i}`],
      controls: ['bench-encryption'],
    })),
    {
      key: 'bench_policy',
      name: 'Bench pods are labelled',
      checks: ['kyverno:bench-require-labels/check-for-labels'],
      controls: ['bench-encryption'],
    },
  ],
});

async function post(service: Child, token: string, pathAndQuery: string, file: string, type = 'application/json') {
  const started = performance.now();
  const res = await fetch(`${service.url}${pathAndQuery}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': key(), 'content-type': type },
    body: await fs.openAsBlob(file),
  });
  const body = (await res.json()) as { data?: Record<string, unknown> };
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 200 || !body.data) throw new Error(`${pathAndQuery} answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return { seconds, answer: body.data };
}

async function benchEngine(engine: BenchEngine): Promise<string[][]> {
  const database = await createBenchDatabase(engine, { scale: 1, tag: 'checks' });
  const env = {
    ...importServiceEnv(database),
    // synchronous imports, so that the time measured is the import's own (no job polling)
    IMPORT_JOB_THRESHOLD_BYTES: String(1024 * 1024 * 1024),
    IMPORT_MAX_BYTES: String(1024 * 1024 * 1024),
  };
  const rows: string[][] = [];
  const port = await freePort();
  const service = await startChild([path.join(ROOT, 'src/main.ts')], { ...env, PORT: String(port) }, port);
  try {
    const token = await fetchToken(service.url, database.demo.readWrite);
    const applied = await fetch(`${service.url}/v1/program`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': key(), 'content-type': 'application/json' },
      body: JSON.stringify(program()),
    });
    if (applied.status !== 200) throw new Error(`program apply answered ${applied.status}: ${(await applied.text()).slice(0, 500)}`);
    const time = Date.now() - 60_000;
    const files = {
      prowler: path.join(dir, 'prowler.ocsf.json'),
      policy: path.join(dir, 'policy.json'),
      sarifProwler: path.join(dir, 'prowler-sized.sarif'),
      sarifPolicy: path.join(dir, 'policy-sized.sarif'),
    };
    const sizes = {
      prowler: await writeProwler(files.prowler, checks, perCheck, time),
      policy: await writePolicyReport(files.policy, policyResults, time),
      sarifProwler: await writeSarif(files.sarifProwler, prowlerResults, 'p'),
      sarifPolicy: await writeSarif(files.sarifPolicy, policyResults, 'k'),
    };
    const row = (run: string, n: number, bytes: number, seconds: number, note: string) => [
      database.label,
      run,
      n.toLocaleString('en-US'),
      sizeOf(bytes),
      `${seconds.toFixed(2)} s`,
      Math.round(n / seconds).toLocaleString('en-US'),
      note,
    ];
    for (const [label, file, format, n, sarif, sarifBytes] of [
      ['Prowler OCSF', files.prowler, 'ocsf', prowlerResults, files.sarifProwler, sizes.sarifProwler],
      ['policy report', files.policy, 'policyreport', policyResults, files.sarifPolicy, sizes.sarifPolicy],
    ] as const) {
      const bytes = format === 'ocsf' ? sizes.prowler : sizes.policy;
      const first = await post(service, token, `/v1/tests/results/imports?format=${format}&scope=bench`, file);
      const again = await post(service, token, `/v1/tests/results/imports?format=${format}&scope=bench`, file);
      const scanner = await post(
        service,
        token,
        `/v1/vulnerabilities/imports?format=sarif&scope=bench/${format}`,
        sarif,
        'application/sarif+json',
      );
      console.log(`  ${label}, first: ${JSON.stringify({ ...first.answer, testIds: (first.answer.testIds as unknown[]).length })}`);
      console.log(`  ${label}, again: ${JSON.stringify({ ...again.answer, testIds: (again.answer.testIds as unknown[]).length })}`);
      rows.push(
        row(
          `${label}: first import`,
          n,
          bytes,
          first.seconds,
          `×${(scanner.seconds / first.seconds).toFixed(2)} the scanner import's speed`,
        ),
      );
      rows.push(
        row(
          `${label}: re-import, unchanged`,
          n,
          bytes,
          again.seconds,
          `time ×${(again.seconds / first.seconds).toFixed(2)} of the first (≤ 0.1)`,
        ),
      );
      rows.push(row(`SARIF, as many findings: first import`, n, sarifBytes, scanner.seconds, ''));
      if (again.seconds > first.seconds / 10)
        console.log(`  ✖ ${label}: the unchanged re-import took more than a tenth of the first import`);
    }
  } finally {
    await service.stop();
    await database.drop();
  }
  return rows;
}

const rows = await rowsOnEngines(values.engines, benchEngine);
fs.rmSync(dir, { recursive: true, force: true });
console.log(
  `\nCheckers' reports through POST /v1/tests/results/imports, against SARIF through POST /v1/vulnerabilities/imports (${os.cpus().length} cores)`,
);
console.log(
  formatTable(['Engine', 'Run', 'Results', 'File', 'Time', 'Results/s', 'Ratio'], rows, [false, false, true, true, true, true, false]),
);
