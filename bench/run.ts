// npm run bench: the benchmarks, each in its own process, one after another.
//
//   npm run bench                                  reads (both engines) and uploads
//   npm run bench -- --only reads|uploads|controls|vulnerabilities|vulnerability-pages|statements|frameworks|outbox|test-result-push|webhook-latency|staleness|memory|malformed-flood|vulnerability-import|check-results-import|program-load|noisy-neighbour[,...]
//   npm run bench -- --only reads -- --seconds 5   arguments after a second -- go to each script
//
// reads: bench/reads.ts, every list endpoint, a get-one and /healthz against a raw node:http server
// sending the same bytes (SQLite, and PostgreSQL + Redis when BENCH_/TEST_DATABASE_URL and
// _REDIS_URL are set). uploads: bench/uploads.ts, 100 MiB in 5 files against a raw server streaming
// to disk. The others are the per-area benchmarks (see the head of each file; webhook-latency
// and staleness need PostgreSQL); outbox: bench/outbox.ts, what recording change events adds to a write;
// malformed-flood: bench/malformed-flood.ts, malformed requests and what a flood of them costs;
// vulnerability-import: bench/vulnerability-import.ts, a 100,000-result SARIF import and its
// unchanged re-import into the scale-20 organization, with the server's peak memory.
// check-results-import: bench/check-results-import.ts, a 50,000-result Prowler report and a
// 10,000-resource policy report as test runs, and their unchanged re-imports, against SARIF imports.
// test-result-push: bench/test-result-push.ts, a pushed test result that flips a control next to an upload.
// noisy-neighbour: bench/noisy-neighbour.ts, other organizations' reads, writes and /healthz while one
// organization imports or plans (issue 36; `-- --quick` for a short run).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './lib/child.ts';

const SCRIPTS = {
  reads: 'bench/reads.ts',
  uploads: 'bench/uploads.ts',
  controls: 'bench/controls.ts',
  vulnerabilities: 'bench/vulnerabilities.ts',
  'vulnerability-pages': 'bench/vulnerability-pages.ts',
  statements: 'bench/statements.ts',
  frameworks: 'bench/frameworks.ts',
  outbox: 'bench/outbox.ts',
  'test-result-push': 'bench/test-result-push.ts',
  'webhook-latency': 'bench/webhook-latency.ts',
  staleness: 'bench/staleness.ts',
  memory: 'bench/memory.ts',
  'malformed-flood': 'bench/malformed-flood.ts',
  'vulnerability-import': 'bench/vulnerability-import.ts',
  'check-results-import': 'bench/check-results-import.ts',
  'program-load': 'bench/program-load.ts',
  'noisy-neighbour': 'bench/noisy-neighbour.ts',
} as const;
type Name = keyof typeof SCRIPTS;
const DEFAULT: Name[] = ['reads', 'uploads'];

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split === -1 ? argv : argv.slice(0, split);
const passed = split === -1 ? [] : argv.slice(split + 1);
let only: Name[] = DEFAULT;
for (let i = 0; i < own.length; i++) {
  const arg = own[i];
  const value = arg.startsWith('--only=') ? arg.slice('--only='.length) : arg === '--only' ? own[++i] : undefined;
  if (value === undefined) {
    console.error(
      `unknown argument ${arg}; usage: npm run bench -- [--only ${Object.keys(SCRIPTS).join('|')}[,...]] [-- script arguments]`,
    );
    process.exit(64);
  }
  only = value.split(/[,|]/).filter(Boolean) as Name[];
  const unknown = only.filter((n) => !(n in SCRIPTS));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; one of ${Object.keys(SCRIPTS).join(', ')}`);
    process.exit(64);
  }
}

for (const name of only) {
  console.log(`\n== ${name} (${SCRIPTS[name]}) ==`);
  const result = spawnSync(process.execPath, [path.join(ROOT, SCRIPTS[name]), ...passed], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${name} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}
