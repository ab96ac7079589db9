// A large program document's plan, sent again and again, keeps the server's resident memory
// bounded (issue 36, goals (c) and (d): an 8 MiB YAML plan and a 50 MiB JSON plan within
// +256 MiB). The server is a real process at its default settings (src/main.ts, one worker thread
// on this machine or more), its memory VmRSS from /proc sampled every 50 ms while one organization
// sends a document of tests with flagged resources, `PUT /v1/program?mode=plan`, three times in a
// row: 4 MiB of YAML, then 24 MiB of JSON. Before the fixes the YAML syntax tree of the whole text
// was held in the worker thread and its heap kept it between documents (the growth was 697 MiB);
// and each JSON plan left its body (a SharedArrayBuffer) and its flagged resources (an object
// each) on the event loop's heap until a full collection, with the whole document's value in the
// worker meanwhile: the JSON plans grew the server by 292-299 MiB (SQLite and PostgreSQL, the code
// of deca0fc), and by 119-151 MiB after the fixes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrgWithCredential, getToken } from '../harness/server.ts';

const MiB = 1024 * 1024;
const RUNS = 3;
const BOUND_MIB = 256;

/** Tests with flagged resources, as a document of about `bytes` bytes (10,000 resources a test, the schema's most). */
function testsDocument(format: 'yaml' | 'json', bytes: number): { text: string; resources: number } {
  const parts = [format === 'yaml' ? 'version: 1\ntests:\n' : '{"version":1,"tests":['];
  let size = parts[0].length;
  let resources = 0;
  for (let t = 0; size < bytes; t++) {
    parts.push(
      format === 'yaml'
        ? `  - key: memory-${t}\n    name: Memory test ${t}\n    resources:\n`
        : `${t > 0 ? ',' : ''}{"key":"memory-${t}","name":"Memory test ${t}","resources":[`,
    );
    for (let r = 0; r < 10_000 && size < bytes; r++) {
      const item =
        format === 'yaml'
          ? `      - resourceId: m-${t}-${r}\n        name: u${r}\n        status: passing\n`
          : `${r > 0 ? ',' : ''}{"resourceId":"m-${t}-${r}","name":"u${r}","status":"passing"}`;
      parts.push(item);
      size += item.length;
      resources++;
    }
    if (format === 'json') parts.push(']}');
  }
  if (format === 'json') parts.push(']}');
  return { text: parts.join(''), resources };
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const DOCUMENTS = [
  { format: 'yaml', bytes: 4 * MiB, type: 'application/yaml' },
  { format: 'json', bytes: 24 * MiB, type: 'application/json' },
] as const;

for (const dialect of dialects) {
  for (const { format, bytes, type } of DOCUMENTS) {
    describe(`a large ${format.toUpperCase()} plan, repeated, keeps the server's memory bounded (${dialect})`, () => {
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

      test(`${RUNS} plans of a ${bytes / MiB} MiB ${format.toUpperCase()} document grow the resident memory by less than ${BOUND_MIB} MiB`, async (t) => {
        const system = { db: database.db, region: 'us' as const, now: Date.now };
        const client = await createOrgWithCredential(system, { accessLevel: 'read_write', name: 'Large plans' });
        const token = await getToken(server.url, client);
        const { text, resources } = testsDocument(format, bytes);
        const plan = (body: string) =>
          fetch(`${server.url}/v1/program?mode=plan`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': type },
            body,
          });
        // Warm-up: the routes, the worker thread and its modules loaded, as on a server that has served.
        const warm = await plan(testsDocument(format, 64 * 1024).text);
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
}
