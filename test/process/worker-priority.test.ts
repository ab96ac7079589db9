// The worker threads yield the cores to the event loop (WORKER_NICE, src/workers/thread-priority.ts):
// a server started as a deployment starts it (a child process), made to start its worker thread by a
// program plan, with WORKER_NICE=10 has that thread at nice 10 and its event loop's thread at the
// process's own; by default (0) every thread runs as the process; a value out of range stops the
// start with a message naming the setting. Linux only: the nice value is read from /proc.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printedToken, runServerProcessToExit, startServerProcess, type ServerProcess } from '../harness/process.ts';

const onLinux = process.platform === 'linux';

/** Each thread of `pid` with its nice value (field 19 of /proc/<pid>/task/<tid>/stat, after the name). */
function threadNices(pid: number): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      nices.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return nices;
}

async function planSomething(server: ServerProcess): Promise<void> {
  const token = await printedToken(server);
  const plan = await fetch(`${server.url}/v1/program?mode=plan`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml', 'idempotency-key': `nice-${Date.now()}` },
    body: 'version: 1\n',
  });
  await plan.arrayBuffer();
  assert.equal(plan.status, 200, 'the plan ran (and with it the worker thread that parsed its document)');
}

describe('worker threads yield the cores to the event loop', { skip: onLinux ? false : 'thread nice values are read from /proc' }, () => {
  const servers: ServerProcess[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<ServerProcess> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-nice-'));
    dirs.push(dataDir);
    const server = await startServerProcess({
      demoOnEmpty: true,
      env: { DATA_DIR: dataDir, OPS_PORT: 'off', ...env },
      startTimeoutMs: 50_000,
    });
    servers.push(server);
    return server;
  }

  test('WORKER_NICE=10: the thread that parses documents runs at nice 10; the event loop at the process’s own', async () => {
    const server = await start({ WORKER_NICE: '10' });
    const pid = server.child.pid!;
    const before = threadNices(pid);
    await planSomething(server);
    const afterPlan = threadNices(pid);
    const started = [...afterPlan].filter(([tid]) => !before.has(tid));
    assert.equal(afterPlan.get(pid), 0, 'the event loop (the process’s main thread) keeps nice 0');
    assert.ok(
      [...afterPlan.values()].includes(10),
      `a thread at nice 10 after the plan; the threads: ${JSON.stringify([...afterPlan])} (started by the plan: ${JSON.stringify(started)})`,
    );
    assert.ok(
      [...before.values()].every((nice) => nice === 0),
      'before any document, no thread is lowered (the pool starts its threads on the first task)',
    );
  });

  test('by default every thread runs as the process', async () => {
    const server = await start({});
    await planSomething(server);
    const nices = threadNices(server.child.pid!);
    assert.deepEqual([...new Set(nices.values())], [0]);
  });

  test('a value out of range stops the start, naming the setting', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-nice-'));
    dirs.push(dataDir);
    const result = await runServerProcessToExit({ env: { DATA_DIR: dataDir, WORKER_NICE: '20' } });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr + result.stdout, /WORKER_NICE must be at most 19, got 20/);
  });
});
