// Program documents (issue 25): the CPU time of a re-apply and of a plan on SQLite, which a loaded
// machine disturbs far less than the wall clock. Run it on two worktrees in turn (before/after a
// change) and compare; figures in docs/benchmarks.md ("Re-apply and plan on SQLite").
//
//   node --expose-gc bench/program-reapply-cpu.ts [--scale 20] [--runs 4]
//
// The demo loader fills organization A, A's export is applied to an empty organization B (timed
// once), then `--runs` times: the same export again (nothing changes) and a plan of a one-field
// change (a control's name). CPU time is the process's user + system time (node:sqlite runs in it).
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { loadDemoData } from '../src/demo/generate.ts';
import { applyProgram, exportProgram, planProgram } from '../src/domain/program/verbs.ts';
const { values } = parseArgs({ options: { scale: { type: 'string', default: '20' }, runs: { type: 'string', default: '4' } } });
const scale = Number(values.scale);
const runs = Number(values.runs);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pp-'));
const db = openDb({ sqlitePath: path.join(dir, 'b.sqlite') });
await migrateToLatest(db);
const base = { db, region: 'us' as const, now: Date.now };
const a = await createOrganization({ ctx: base, input: { name: 'A' } });
await loadDemoData(db, a.id, { scale, seed: 1 });
const ctx = { ...base, stamp: { kind: 'service' as const } };
const document = (await exportProgram({ ctx, input: { organizationId: a.id } })) as unknown as { controls: Array<{ name: string }> };
const b = await createOrganization({ ctx: base, input: { name: 'B' } });
globalThis.gc?.();
let t = performance.now();
const c0 = process.cpuUsage();
await applyProgram({ ctx, input: { organizationId: b.id, document } });
const apply = performance.now() - t;
const cu = process.cpuUsage(c0);
const applyCpu = (cu.user + cu.system) / 1000;
const again: number[] = [],
  plan: number[] = [],
  againCpu: number[] = [],
  planCpu: number[] = [];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let c = 0;
for (let i = 0; i < runs; i++) {
  globalThis.gc?.();
  t = performance.now();
  c = cpu();
  await applyProgram({ ctx, input: { organizationId: b.id, document } });
  again.push(performance.now() - t);
  againCpu.push(cpu() - c);
  document.controls[0].name += ' x';
  globalThis.gc?.();
  t = performance.now();
  c = cpu();
  await planProgram({ ctx, input: { organizationId: b.id, document } });
  plan.push(performance.now() - t);
  planCpu.push(cpu() - c);
  document.controls[0].name = document.controls[0].name.slice(0, -2);
}
const min = (x: number[]) => Math.min(...x).toFixed(0);
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)].toFixed(0);
console.log(
  `CPU ms: apply ${applyCpu.toFixed(0)} re-apply min ${min(againCpu)} med ${med(againCpu)} plan min ${min(planCpu)} med ${med(planCpu)} | wall ms: apply ${apply.toFixed(0)} re-apply min ${min(again)} med ${med(again)} plan min ${min(plan)} med ${med(plan)} load ${os.loadavg()[0].toFixed(1)}`,
);
await db.close();
fs.rmSync(dir, { recursive: true, force: true });
