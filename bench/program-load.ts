// Reading program documents (src/formats/program/): how long a document of N controls takes to
// become plain data, and the process's peak resident memory, read as JSON by the loader (its
// guard scan, then JSON.parse), as YAML by the loader, and, the baseline, as JSON by bare
// JSON.parse with no checks. Each run is its own child process so its peak (VmHWM, from /proc) is
// its own. The last lines are the ratios against the baseline: what the guards cost, and what
// YAML costs (why PROGRAM_MAX_YAML_BYTES is lower than PROGRAM_MAX_BYTES).
//
//   node bench/program-load.ts [--records 5000] [--runs 3]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { loadProgramText } from '../src/formats/program/load.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const records = Number(values.records);

function documentOf(n: number) {
  return {
    version: 1,
    controls: Array.from({ length: n }, (_, i) => ({
      key: `control-${i}`,
      code: `CTL-${String(i).padStart(5, '0')}`,
      name: `Control number ${i}`,
      description: 'Access to production systems is reviewed every quarter by the system owner. '.repeat(3),
      domain: 'Identity Management, Authentication and Access Control',
      functionGrouping: 'protect',
      assignees: [{ person: 'ada', isPrimary: true }],
      requirements: ['soc2/CC6.1', 'soc2/CC6.2', 'iso/A.5.15'],
      risks: ['unauthorized-access'],
    })),
  };
}

const peakKib = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);

if (values.child) {
  const mode = values.child;
  const doc = documentOf(records);
  const text = mode === 'yaml' ? stringify(doc) : JSON.stringify(doc, null, 2);
  const before = peakKib();
  const started = performance.now();
  const value =
    mode === 'bare-json'
      ? JSON.parse(text)
      : loadProgramText(text, { format: mode === 'yaml' ? 'yaml' : 'json', limits: { maxBytes: 1e9, maxRecords: 1e7, maxYamlBytes: 1e9 } })
          .value;
  const ms = performance.now() - started;
  if ((value as { controls: unknown[] }).controls.length !== records) throw new Error('wrong record count');
  process.stdout.write(JSON.stringify({ ms, bytes: Buffer.byteLength(text), peakGrowthKib: peakKib() - before }));
} else {
  const modes = ['bare-json', 'json', 'yaml'] as const;
  const results: Record<string, { ms: number; bytes: number; peakGrowthKib: number }> = {};
  for (const mode of modes) {
    const runs = Array.from({ length: Number(values.runs) }, () =>
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, '--records', String(records)], {
          encoding: 'utf8',
        }),
      ),
    );
    runs.sort((a, b) => a.ms - b.ms);
    results[mode] = runs[Math.floor(runs.length / 2)];
  }
  console.log(`program documents of ${records} controls (median of ${values.runs} runs, each in its own process)`);
  console.log('reader                 size       time      MiB/s   peak RSS growth');
  for (const mode of modes) {
    const r = results[mode];
    const mib = r.bytes / 1048576;
    console.log(
      `${mode.padEnd(22)} ${`${mib.toFixed(1)} MiB`.padStart(9)} ${`${r.ms.toFixed(0)} ms`.padStart(9)} ${(mib / (r.ms / 1000)).toFixed(1).padStart(8)}   ${(r.peakGrowthKib / 1024).toFixed(0)} MiB`,
    );
  }
  const base = results['bare-json'];
  console.log(`loader JSON / bare JSON.parse: ${(results.json.ms / base.ms).toFixed(2)}× the time`);
  console.log(`loader YAML / bare JSON.parse: ${(results.yaml.ms / base.ms).toFixed(1)}× the time, for the same records`);
}
