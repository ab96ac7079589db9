// Scanner files read as streams (src/formats/): how fast a generated SARIF log is read and how much
// memory the process needs, at 10,000 and 100,000 results. Each run is its own child process so
// its peak resident memory (VmHWM, from /proc) is its own; the file is generated while it is
// read, so the generator holds one batch at a time; resident memory also counts what V8 has not yet
// collected, so a run with the heap capped at 48 MiB shows what is really kept. For comparison, the same log read whole with
// JSON.parse (what a non-streaming reader would do). The last lines are the ratios: results ×10
// should leave the streaming peak nearly flat.
//
//   node bench/scanner-parse.ts [--sizes 10000,100000] [--format sarif]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseScan } from '../src/formats/scanners/formats.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    child: { type: 'string' },
    mode: { type: 'string', default: 'stream' },
  },
});

const RULES = [
  {
    id: 'js/sql-injection',
    shortDescription: { text: 'Database query built from user-controlled sources' },
    help: { text: 'Use parameterized queries.' },
    properties: { 'security-severity': '8.8' },
  },
];

function result(i: number) {
  return {
    ruleId: 'js/sql-injection',
    ruleIndex: 0,
    level: 'error',
    message: { text: `This query depends on a user-provided value (${i}).` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: `src/module${i % 997}/file${i % 89}.js` },
          region: { startLine: i % 3000, startColumn: 5 },
        },
      },
    ],
    partialFingerprints: { primaryLocationLineHash: `${(i * 2654435761) % 2 ** 32}:1` },
  };
}

/** The log as text chunks of about 64 KiB, generated as it is read. */
function* sarifLog(count: number): Generator<string> {
  yield `{"version":"2.1.0","runs":[{"tool":{"driver":${JSON.stringify({ name: 'CodeQL', rules: RULES })}},"results":[`;
  let batch = '';
  for (let i = 0; i < count; i++) {
    batch += (i ? ',' : '') + JSON.stringify(result(i));
    if (batch.length > 64 * 1024) {
      yield batch;
      batch = '';
    }
  }
  yield `${batch}]}]}`;
}

const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

async function child(count: number, mode: string) {
  const start = process.hrtime.bigint();
  let bytes = 0;
  let findings = 0;
  if (mode === 'stream') {
    const chunks = (function* () {
      for (const text of sarifLog(count)) {
        const chunk = Buffer.from(text);
        bytes += chunk.length;
        yield chunk;
      }
    })();
    for await (const _ of parseScan('sarif', chunks)) findings += 1;
  } else {
    const text = [...sarifLog(count)].join('');
    bytes = Buffer.byteLength(text);
    const doc = JSON.parse(text) as { runs: { results: unknown[] }[] };
    findings = doc.runs[0]?.results.length ?? 0;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  process.stdout.write(JSON.stringify({ count, findings, bytes, seconds, peak: peakRss() }));
}

if (values.child) await child(Number(values.child), values.mode);
else {
  const script = fileURLToPath(import.meta.url);
  const sizes = values.sizes.split(',').map(Number);
  const rows: Record<string, { count: number; findings: number; bytes: number; seconds: number; peak: number }> = {};
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  console.log('mode          results   file        time      results/s   peak RSS');
  for (const mode of ['stream', 'json-parse'])
    for (const size of sizes) {
      const out = execFileSync(process.execPath, [script, '--child', String(size), '--mode', mode], { encoding: 'utf8', maxBuffer: 1e6 });
      const row = JSON.parse(out) as (typeof rows)[string];
      rows[`${mode}:${size}`] = row;
      console.log(
        `${mode.padEnd(12)}  ${String(row.findings).padStart(7)}   ${mib(row.bytes).padStart(9)}   ${row.seconds.toFixed(2).padStart(6)} s   ${String(Math.round(row.findings / row.seconds)).padStart(9)}   ${mib(row.peak).padStart(9)}`,
      );
    }
  const [small, large] = [sizes[0], sizes[sizes.length - 1]];
  // A heap capped far below the file: the streaming reader finishes, a whole-document read cannot.
  for (const mode of ['stream', 'json-parse']) {
    let outcome = 'finished';
    try {
      execFileSync(process.execPath, ['--max-old-space-size=48', script, '--child', String(large), '--mode', mode], {
        stdio: 'pipe',
        maxBuffer: 1e7,
      });
    } catch {
      outcome = 'ran out of memory';
    }
    console.log(`${mode} of ${large} results with the V8 heap capped at 48 MiB: ${outcome}`);
  }
  for (const mode of ['stream', 'json-parse']) {
    const a = rows[`${mode}:${small}`];
    const b = rows[`${mode}:${large}`];
    if (a && b) console.log(`${mode}: results ×${(b.findings / a.findings).toFixed(0)} → peak RSS ×${(b.peak / a.peak).toFixed(2)}`);
  }
}
