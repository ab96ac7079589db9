// HEAP_GROWTH_PERCENT takes effect (src/heap-growth.ts): a process that holds a live heap and
// leaves garbage that outlives young collections (as a program document's apply does) peaks far
// lower with the default than with V8's own factor. This guards the V8 flag the setting passes: a
// Node upgrade that dropped or renamed it would silently bring back V8's factor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

// What main.ts and `cds` do at start (config, then the setting), then the workload: 600,000 live
// records, and batches of objects kept for 200 batches before they are dropped.
const WORKLOAD = `
import { loadConfig } from ${JSON.stringify(pathToFileURL(path.join(SRC, 'config.ts')).href)};
import { setHeapGrowth } from ${JSON.stringify(pathToFileURL(path.join(SRC, 'heap-growth.ts')).href)};
setHeapGrowth(loadConfig(process.env).heapGrowthPercent);
const live = [];
for (let i = 0; i < 600_000; i++) live.push({ name: 'record-' + i, refs: [i, i + 1, i + 2] });
globalThis.gc();
let peak = 0;
const kept = [];
for (let batch = 0; batch < 3000; batch++) {
  kept.push(Array.from({ length: 5000 }, (_, j) => ({ j, s: 'y' + j + '-' + batch })));
  if (kept.length > 200) kept.shift();
  peak = Math.max(peak, process.memoryUsage().heapUsed);
}
console.log(JSON.stringify({ peakMiB: peak / 1048576, live: live.length }));
`;

function peakHeapMiB(env: NodeJS.ProcessEnv): number {
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', WORKLOAD], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out).peakMiB;
}

test('the default heap growth keeps a bulk workload well below what V8 grows to on its own', () => {
  const served = peakHeapMiB({});
  const own = peakHeapMiB({ HEAP_GROWTH_PERCENT: '0' });
  assert.ok(served < own * 0.75, `peak heap with the default ${served.toFixed(0)} MiB, with V8's own factor ${own.toFixed(0)} MiB`);
});
