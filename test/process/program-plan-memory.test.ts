// A large program document's plan, sent again and again, keeps the server's resident memory
// bounded (issue 36, goal (c): an 8 MiB YAML plan within +256 MiB). The server is a real process
// at its default settings (src/main.ts, one worker thread on this machine or more), its memory
// VmRSS from /proc sampled every 50 ms while one organization sends a 4 MiB YAML document of tests
// with flagged resources, `PUT /v1/program?mode=plan`, three times in a row. Before the fix the
// YAML syntax tree of the whole text was held in the worker thread and its heap kept it between
// documents: the growth was 697 MiB.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrgWithCredential, getToken } from '../harness/server.ts';

const MiB = 1024 * 1024;
const DOCUMENT_BYTES = 4 * MiB;
const RUNS = 3;
const BOUND_MIB = 256;

/** Tests with flagged resources, as YAML of about `bytes` bytes (10,000 resources a test, the schema's most). */
function testsYaml(bytes: number): { text: string; resources: number } {
  const parts = ['version: 1\ntests:\n'];
  let size = parts[0].length;
  let resources = 0;
  for (let t = 0; size < bytes; t++) {
    parts.push(`  - key: memory-${t}\n    name: Memory test ${t}\n    resources:\n`);
    for (let r = 0; r < 10_000 && size < bytes; r++) {
      const line = `      - resourceId: m-${t}-${r}\n        name: u${r}\n        status: passing\n`;
      parts.push(line);
      size += line.length;
      resources++;
    }
  }
  return { text: parts.join(''), resources };
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

for (const dialect of dialects) {
  describe(`a large YAML plan, repeated, keeps the server's memory bounded (${dialect})`, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    before(async () => {
      database = await createTestDatabase(dialect);
      server = await startServerProcess({ database, store: createTestStore('memory'), env: { RATE_LIMIT_MAX: '100000' } });
    });
    after(async () => {
      await server?.stop();
      await database?.drop();
    });

    test(`${RUNS} plans of a ${DOCUMENT_BYTES / MiB} MiB YAML document grow the resident memory by less than ${BOUND_MIB} MiB`, async (t) => {
      const system = { db: database.db, region: 'us' as const, now: Date.now };
      const client = await createOrgWithCredential(system, { accessLevel: 'read_write', name: 'Large plans' });
      const token = await getToken(server.url, client);
      const { text, resources } = testsYaml(DOCUMENT_BYTES);
      const plan = (body: string) =>
        fetch(`${server.url}/v1/program?mode=plan`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
          body,
        });
      // Warm-up: the routes, the worker thread and its modules loaded, as on a server that has served.
      const warm = await plan(testsYaml(64 * 1024).text);
      assert.equal(warm.status, 200, await warm.text());
      const pid = server.child.pid!;
      const start = rssOf(pid);
      let peak = start;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 50);
      try {
        for (let run = 0; run < RUNS; run++) {
          const res = await plan(text);
          const body = (await res.json()) as { data?: { counts?: { tests?: { created: number } } } };
          assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
          assert.ok((body.data?.counts?.tests?.created ?? 0) > 0, `run ${run + 1} planned no test (${resources} resources sent)`);
        }
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssOf(pid));
      const growth = (peak - start) / MiB;
      t.diagnostic(`resident memory ${(start / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB: +${growth.toFixed(0)} MiB`);
      assert.ok(growth < BOUND_MIB, `resident memory grew by ${growth.toFixed(0)} MiB (from ${(start / MiB).toFixed(0)} MiB)`);
    });
  });
}
