// One tenant's write never stalls another tenant's reads (issue 36, "Reads never wait for a write";
// docs/decisions/storage.md, "Reads beside the writer on SQLite"). A write transaction of the
// server's own database is held open, awaiting between its statements as a bulk write does while
// its worker threads work (an import's file is spooled before its transaction now, so a trickling
// client no longer holds one); meanwhile another organization's GET /v1/controls answers at once,
// cold and then warm, the warm ones still answered from memory (nothing committed, so nothing to
// prove again) although the transaction keeps running statements; a read outside it sees only
// committed data until it commits, and its change right after.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { newOrg } from '../harness/vulnerability-writes.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../../src/storage/db/schema.ts';

/** The engine pairs a deployment runs on: SQLite alone, and PostgreSQL with Redis (its warm reads need Redis's markers). */
const deployments: Array<{ dialect: 'sqlite' | 'postgres'; store: 'memory' | 'redis' }> = [{ dialect: 'sqlite', store: 'memory' }];
if (dialects.includes('postgres') && process.env.TEST_REDIS_URL) deployments.push({ dialect: 'postgres', store: 'redis' });

/** "Promptly": a small read answers in a few milliseconds on a quiet server (a cold one on PostgreSQL took 514 ms on a busy 2-core test machine); the reads queued behind the transaction waited until it ended. */
const PROMPT_MS = 1_000;

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
 * Waits until the write transaction is held: on SQLite, another connection
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
      server = await startServer({ dialect, store, env: { RATE_LIMIT_MAX: '100000', TIME_SCHEDULER: 'on' } });
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

    it('while another organization holds a write transaction open, a third reads /v1/controls at once, cold and warm (served warm); its change is seen right after the commit', async (t) => {
      const writer = await newOrg(server, 'Writer');
      const readerClient = await createOrgWithCredential(server.system, { name: 'Reader' });
      const reader = await getToken(server.url, readerClient);
      const writerId = writer.client.organizationId;
      const nameOf = async () =>
        (await server.system.db.kysely.selectFrom('organizations').select('name').where('id', '=', writerId).executeTakeFirstOrThrow())
          .name;

      // A write transaction of the server's own database that awaits between its statements, as a
      // bulk write does while its worker threads parse and diff: held until the test lets it go.
      let step: (() => void) | undefined;
      let stepped: (() => void) | undefined;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let statements = 0;
      const write = async (trx: Transaction<Database>) => {
        statements++;
        await trx
          .updateTable('organizations')
          .set({ name: `Writer ${statements}` })
          .where('id', '=', writerId)
          .execute();
      };
      const held = server.system.db.kysely.transaction().execute(async (trx) => {
        await write(trx);
        for (;;) {
          const next = new Promise<'step' | 'release'>((resolve) => {
            step = () => resolve('step');
            void released.then(() => resolve('release'));
          });
          stepped?.();
          if ((await next) === 'release') return;
          await write(trx);
        }
      });
      const writeMore = () =>
        new Promise<void>((resolve) => {
          stepped = resolve;
          step?.();
        });

      const timings: number[] = [];
      try {
        await untilTransactionHeld(server, writerId);
        const cold = await timed(PROMPT_MS, api(server.url, '/v1/controls', reader));
        timings.push(cold.ms);
        assert.notEqual(cold.value, 'waiting', `a cold read answered within ${PROMPT_MS} ms while the transaction is open`);
        assert.equal((cold.value as { status: number }).status, 200);
        const warmBefore = await warmReads();
        for (let i = 0; i < 5; i++) {
          // The transaction keeps running write statements.
          await writeMore();
          await sleep(20);
          const warm = await timed(PROMPT_MS, api(server.url, '/v1/controls', reader));
          timings.push(warm.ms);
          assert.notEqual(warm.value, 'waiting', `warm read ${i + 1} answered within ${PROMPT_MS} ms while the transaction is open`);
          assert.deepEqual((warm.value as { body: { data: unknown } }).body.data, (cold.value as { body: { data: unknown } }).body.data);
        }
        assert.equal((await warmReads()) - warmBefore, 5, 'every warm read was answered from memory: statements in flight prove no change');
        assert.equal(await nameOf(), 'Writer', 'a read outside the transaction sees committed data only');
      } finally {
        t.diagnostic(`reads during the open transaction (ms): ${timings.map((ms) => ms.toFixed(1)).join(', ')}`);
        release();
        await held;
      }
      assert.equal(await nameOf(), `Writer ${statements}`, 'the commit is read right after it');
    });
  });
}
