// More slow scanner imports from one organization than the database pool has connections
// (DATABASE_POOL_SIZE=3, issue 36 item 2): each file trickles in while its import holds nothing, so
// another organization's reads and writes keep answering, promptly and never 503, and every import
// still completes once its file has arrived. The server is a real process (the pool size is its
// setting), on each engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { holdUpload, type HeldUpload } from '../harness/held-upload.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken } from '../harness/server.ts';
import { resultAt, sarif } from '../harness/vulnerability-imports.ts';
import { minimal, newKey, writeHeaders } from '../harness/vulnerability-writes.ts';

const POOL = 3;
const SLOW_IMPORTS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of dialects) {
  describe(`slow imports beyond the pool do not stall another organization (${dialect})`, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let blobDir: string;
    before(async () => {
      database = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-slow-imports-'));
      server = await startServerProcess({
        database,
        store: createTestStore('memory'),
        env: { BLOB_DIR: blobDir, DATABASE_POOL_SIZE: String(POOL), RATE_LIMIT_MAX: '100000', REQUEST_TIMEOUT_MS: '60000' },
      });
    });
    after(async () => {
      await server?.stop();
      await database?.drop();
      fs.rmSync(blobDir, { recursive: true, force: true });
    });

    test(`${SLOW_IMPORTS} trickling imports of one tenant, pool of ${POOL}: the other tenant's reads and writes never 503`, async () => {
      const system = { db: database.db, region: 'us' as const, now: Date.now };
      const slowClient = await createOrgWithCredential(system, { accessLevel: 'read_write', name: 'Slow importer' });
      const otherClient = await createOrgWithCredential(system, { accessLevel: 'read_write', name: 'Other tenant' });
      const slow = await getToken(server.url, slowClient);
      const other = await getToken(server.url, otherClient);
      const created = await api(server.url, '/v1/vulnerabilities', other, {
        method: 'POST',
        headers: writeHeaders(newKey()),
        body: JSON.stringify(minimal('VUL-0001')),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));

      const held: HeldUpload[] = [];
      for (let i = 0; i < SLOW_IMPORTS; i++) {
        const file = Buffer.from(sarif([resultAt(`src/slow-${i}.js`, i + 1)]));
        held.push(
          holdUpload({
            url: server.url,
            path: `/v1/vulnerabilities/imports?format=sarif&scope=repo-${i}`,
            token: slow,
            key: newKey(),
            body: file,
            contentType: 'application/json',
            sentBytes: Math.floor(file.length / 2),
          }),
        );
      }
      try {
        await sleep(1000); // every import has begun on its first half
        const answers: { what: string; status: number; ms: number }[] = [];
        for (let round = 0; round < 3; round++) {
          for (const [what, init, route] of [
            ['read', {}, '/v1/vulnerabilities'],
            [
              'write',
              {
                method: 'PATCH',
                headers: writeHeaders(newKey()),
                body: JSON.stringify({ reportLink: `https://example.com/round-${round}` }),
              },
              '/v1/vulnerabilities/api%23VUL-0001',
            ],
          ] as const) {
            const started = Date.now();
            const res = await api(server.url, route, other, { ...init, signal: AbortSignal.timeout(10_000) }).catch((err: Error) => ({
              status: 0,
              body: err.message,
            }));
            answers.push({ what, status: res.status, ms: Date.now() - started });
          }
        }
        const bad = answers.filter((a) => a.status !== 200 || a.ms > 1000);
        assert.deepEqual(bad, [], `the other tenant's requests while ${SLOW_IMPORTS} imports trickled: ${JSON.stringify(answers)}`);
      } finally {
        const done = await Promise.all(held.map((h) => h.finish().catch((err: Error) => ({ status: 0, body: err.message }))));
        assert.deepEqual(
          done.map((d) => d.status),
          held.map(() => 200),
          JSON.stringify(done.map((d) => d.body)),
        );
      }
    });
  });
}
