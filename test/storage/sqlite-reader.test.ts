// Reads beside the writer on SQLite (issue 36; docs/decisions/storage.md, "Reads beside the writer
// on SQLite"): a plain SELECT outside a transaction runs at once on the reader connection, on the
// last committed data, while another request's transaction holds the one writer; a read after a
// commit sees it; writes still take their turn; and the change stamp moves with commits only.
// Each with the writer on the event loop (`cds`) and in its own thread (a server: src/storage/db/sqlite-writer.ts);
// the thread's own promise, that a long statement leaves the loop free, at the end.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDb, type Db } from '../../src/storage/db/connect.ts';
import { isUniqueViolation } from '../../src/storage/db/errors.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** What `work` settled with, or 'waiting' when it had not settled within `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | 'waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function withDb(run: (db: Db, file: string) => Promise<void>, writerInThread: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-reader-'));
  const file = path.join(dir, 'reader.sqlite');
  const db = openDb({ sqlitePath: file, writerInThread });
  try {
    await sql`create table t (x integer)`.execute(db.kysely);
    await run(db, file);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Opens a transaction that writes `x` and stays open until `release` is called. */
function openTransaction(db: Db, x: number) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const done = db.kysely.transaction().execute(async (trx) => {
    await trx
      .insertInto('t' as never)
      .values({ x } as never)
      .execute();
    wrote();
    await released;
    await trx
      .insertInto('t' as never)
      .values({ x: x + 1 } as never)
      .execute();
  });
  return { written, release, done };
}

const count = async (db: Db) => Number((await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely)).rows[0].n);
const countBuilt = async (db: Db) =>
  Number(
    (
      await db.kysely
        .selectFrom('t' as never)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

for (const writerInThread of [false, true])
  describe(`SQLite reads beside the writer (the writer ${writerInThread ? 'in its thread' : 'on the event loop'})`, () => {
    const withFileDb = (run: (db: Db, file: string) => Promise<void>) => withDb(run, writerInThread);
    it('a plain SELECT answers at once while a transaction holds the writer, on the last committed data', async () => {
      await withFileDb(async (db) => {
        await sql`insert into t values (1)`.execute(db.kysely);
        const open = openTransaction(db, 10);
        await open.written;
        let write: Promise<unknown> | undefined;
        try {
          assert.equal(await within(1000, count(db)), 1, 'a raw SELECT: answered, without the open transaction’s row');
          assert.equal(await within(1000, countBuilt(db)), 1, 'a built SELECT: the same');
          // A write outside the transaction still takes its turn after it.
          write = sql`insert into t values (2)`.execute(db.kysely);
          assert.equal(await within(200, write), 'waiting', 'a write waits for the open transaction');
        } finally {
          open.release();
          await open.done;
          await write;
        }
        assert.equal(await count(db), 4, 'the transaction’s two rows and the write after it');
      });
    });

    it('a read after a commit sees it (read your writes), after a transaction and after a single write', async () => {
      await withFileDb(async (db) => {
        const open = openTransaction(db, 10);
        await open.written;
        open.release();
        await open.done;
        assert.equal(await count(db), 2, 'the committed transaction is read at once');
        await sql`insert into t values (3)`.execute(db.kysely);
        assert.equal(await countBuilt(db), 3, 'the committed single write is read at once');
        await db.kysely.transaction().execute(async (trx) => {
          await sql`insert into t values (4)`.execute(trx);
          assert.equal(
            Number((await sql<{ n: number }>`select count(*) as n from t`.execute(trx)).rows[0].n),
            4,
            'a transaction reads its own rows',
          );
        });
      });
    });

    it('the change stamp moves when a transaction commits, not with the statements inside it', async () => {
      await withFileDb(async (db) => {
        await nextTurn();
        const stamp = db.changeStamp!;
        const start = stamp();
        const open = openTransaction(db, 10);
        await open.written;
        let during: string;
        try {
          await nextTurn();
          during = stamp();
        } finally {
          open.release();
          await open.done;
        }
        assert.equal(during, start, 'a statement inside an open transaction proves nothing changed yet');
        assert.notEqual(stamp(), start, 'its commit moves the stamp at once (the same turn)');
      });
    });

    it('an in-memory database keeps its one connection: reads and transactions still work', async () => {
      const db = openDb({ sqlitePath: ':memory:', writerInThread });
      try {
        await sql`create table t (x integer)`.execute(db.kysely);
        const open = openTransaction(db, 1);
        await open.written;
        const read = count(db);
        open.release();
        await open.done;
        assert.equal(await read, 2, 'the read took its turn after the transaction (one connection)');
      } finally {
        await db.close();
      }
    });
  });

describe('SQLite: the writer in its own thread', () => {
  it('a long statement of the writer leaves the event loop free; its result comes back', async () => {
    await withDb(async (db) => {
      // a statement that takes SQLite a few hundred milliseconds, inside a transaction (on the writer)
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const started = performance.now();
      const n = await db.kysely.transaction().execute(async (trx) => {
        const rows = await sql<{
          n: number;
        }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select count(*) as n from c`.execute(trx);
        return Number(rows.rows[0]?.n);
      });
      const took = performance.now() - started;
      delay.disable();
      assert.equal(n, 3_000_000);
      assert.ok(took > 150, `the statement took ${took.toFixed(0)} ms: make it longer for the test to mean something`);
      // On the loop, the loop waits for the whole statement (the writer before: every statement there).
      const held = delay.max / 1e6;
      assert.ok(held < took / 2, `the loop was held ${held.toFixed(0)} ms by a statement of ${took.toFixed(0)} ms`);
    }, true);
  });

  it('a refused write keeps its error (a unique constraint is still known as one) and the writer goes on', async () => {
    await withDb(async (db) => {
      await sql`create unique index t_x on t (x)`.execute(db.kysely);
      await sql`insert into t values (1)`.execute(db.kysely);
      const refused = await sql`insert into t values (1)`.execute(db.kysely).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(refused instanceof Error, 'the second insert is refused');
      assert.ok(isUniqueViolation(refused), `known as a unique violation: ${(refused as Error).message}`);
      await assert.rejects(
        db.kysely.transaction().execute(async (trx) => {
          await sql`insert into t values (2)`.execute(trx);
          await sql`insert into t values (1)`.execute(trx);
        }),
        (err: unknown) => isUniqueViolation(err),
      );
      assert.equal(await count(db), 1, 'the refused transaction left nothing');
      await sql`insert into t values (3)`.execute(db.kysely);
      assert.equal(await count(db), 2, 'the writer goes on after a refusal');
    }, true);
  });
});
