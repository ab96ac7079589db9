// One tenant's write never stalls another tenant's reads (issue 36, "Reads never wait for a write";
// docs/decisions/storage.md, "Reads beside the writer on SQLite"). An organization's import whose
// body trickles in holds its write transaction open for as long as the client takes; meanwhile
// another organization's GET /v1/controls answers at once, cold and then warm, the warm ones still
// answered from memory (nothing committed, so nothing to prove again) although the import keeps
// running statements; the importer's own list shows only committed data until the import answers,
// and its new findings right after.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { dialects } from '../harness/engines.ts';
import { holdUpload } from '../harness/held-upload.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { newKey, newOrg } from '../harness/vulnerability-writes.ts';
import { resultAt, sarif } from '../harness/vulnerability-imports.ts';

/** The engine pairs a deployment runs on: SQLite alone, and PostgreSQL with Redis (its warm reads need Redis's markers). */
const deployments: Array<{ dialect: 'sqlite' | 'postgres'; store: 'memory' | 'redis' }> = [{ dialect: 'sqlite', store: 'memory' }];
if (dialects.includes('postgres') && process.env.TEST_REDIS_URL) deployments.push({ dialect: 'postgres', store: 'redis' });

/** "Promptly": a small read answers in a few milliseconds on a quiet server (a cold one on PostgreSQL took 514 ms on a busy 2-core test machine); the reads queued behind the transaction waited until it ended. */
const PROMPT_MS = 1_000;
const RESULTS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer and how long it took, or 'waiting' when it had not come within `ms`. */
async function timed<T>(ms: number, work: Promise<T>): Promise<{ value: T | 'waiting'; ms: number }> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), ms)));
  try {
    const value = await Promise.race([work, late]);
    return { value, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until the organization's import holds its write transaction: on SQLite, another connection
 * cannot take the write lock; on PostgreSQL, the organization's row is locked (lockOrganization).
 */
async function untilTransactionHeld(server: TestServer, organizationId: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (server.database.dialect === 'sqlite') {
      const probe = new DatabaseSync(server.database.env.SQLITE_PATH);
      try {
        probe.exec('PRAGMA busy_timeout = 0');
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
      } catch {
        return;
      } finally {
        probe.close();
      }
    } else {
      const probe = new pg.Client({ connectionString: server.database.env.DATABASE_URL });
      await probe.connect();
      try {
        await probe.query('begin');
        await probe.query('select id from organizations where id = $1 for update nowait', [organizationId]);
        await probe.query('rollback');
      } catch (err) {
        if ((err as { code?: string }).code === '55P03') return;
        throw err;
      } finally {
        await probe.end();
      }
    }
    await sleep(25);
  }
  assert.fail('the import never held its transaction');
}

for (const { dialect, store } of deployments) {
  describe(`another organization's write transaction stalls no read (${dialect}, ${store})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, store, env: { RATE_LIMIT_MAX: '100000' } });
      // A Redis connection may still be coming up on a busy machine.
      for (let attempt = 0; ; attempt++) {
        try {
          await server.testStore.store.ping();
          break;
        } catch (err) {
          if (attempt >= 50) throw err;
          await sleep(200);
        }
      }
    });
    after(() => server.close());

    const warmReads = async () => {
      const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
      return Number(/^cds_warm_reads_total (\S+)$/m.exec(text)?.[1] ?? 0);
    };

    it('while an import trickles in, another organization reads /v1/controls at once, cold and warm (served warm); the importer sees its findings right after the commit', async (t) => {
      const importer = await newOrg(server, 'Importer');
      const readerClient = await createOrgWithCredential(server.system, { name: 'Reader' });
      const reader = await getToken(server.url, readerClient);
      const findings = () => api(server.url, '/v1/vulnerabilities', importer.token);
      for (let i = 0; i < 2; i++)
        assert.deepEqual((await findings()).body.data, [], 'the importer has no findings yet (and its list is warm)');

      const file = Buffer.from(sarif(Array.from({ length: RESULTS }, (_, i) => resultAt(`src/file-${i}.js`, i + 1))));
      const step = Math.floor(file.length / 10);
      const held = holdUpload({
        url: server.url,
        path: '/v1/vulnerabilities/imports?format=sarif',
        token: importer.token,
        key: newKey(),
        body: file,
        contentType: 'application/json',
        sentBytes: 3 * step,
      });
      const timings: number[] = [];
      let warmBefore = 0;
      try {
        await untilTransactionHeld(server, importer.client.organizationId);
        const cold = await timed(PROMPT_MS, api(server.url, '/v1/controls', reader));
        timings.push(cold.ms);
        assert.notEqual(cold.value, 'waiting', `a cold read answered within ${PROMPT_MS} ms while the import's transaction is open`);
        assert.equal((cold.value as { status: number }).status, 200);
        warmBefore = await warmReads();
        for (let i = 0; i < 5; i++) {
          // The import keeps reading its body and writing batches inside its transaction.
          await held.send(step);
          await sleep(50);
          const warm = await timed(PROMPT_MS, api(server.url, '/v1/controls', reader));
          timings.push(warm.ms);
          assert.notEqual(
            warm.value,
            'waiting',
            `warm read ${i + 1} answered within ${PROMPT_MS} ms while the import's transaction is open`,
          );
          assert.deepEqual((warm.value as { body: { data: unknown } }).body.data, (cold.value as { body: { data: unknown } }).body.data);
        }
        assert.equal((await warmReads()) - warmBefore, 5, 'every warm read was answered from memory: statements in flight prove no change');
        const own = await timed(PROMPT_MS, findings());
        assert.notEqual(own.value, 'waiting', 'the importer reads its own list at once too');
        assert.deepEqual((own.value as { body: { data: unknown[] } }).body.data, [], 'committed data only: none of the import yet');
      } finally {
        t.diagnostic(`reads during the open transaction (ms): ${timings.map((ms) => ms.toFixed(1)).join(', ')}`);
        const answer = await held.finish();
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      const listed = await findings();
      assert.equal(listed.status, 200);
      assert.ok(listed.body.data.length > 0, 'the findings are read right after the import answered');
    });
  });
}
