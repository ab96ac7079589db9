// How long a slice of a large import holds SQLite's one writer (issue 36; docs/decisions/program-writes.md,
// "Jobs"): each commit there costs a checkpoint of what the slice wrote, so a slice holds on while
// no other write waits for the writer (up to SLICE_ALONE_MS), and commits at the end of the batch
// under way once one does (after SLICE_MS). The writer's queue is Db.writersWaiting: the writes and
// transactions of this process waiting for the writer, not the reads beside it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDb, type Db } from '../../src/storage/db/connect.ts';
import { ImportSlices } from '../../src/domain/vulnerabilities/import-slices.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withFileDb(run: (db: Db) => Promise<void>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-slices-'));
  const db = openDb({ sqlitePath: path.join(dir, 'slices.sqlite') });
  try {
    await sql`create table t (x integer)`.execute(db.kysely);
    await run(db);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the slices of a large import on SQLite', () => {
  it('counts the writes waiting for the writer, not the reads beside it', async () => {
    await withFileDb(async (db) => {
      assert.equal(db.writersWaiting?.(), 0);
      const trx = await db.kysely.startTransaction().execute();
      await trx
        .insertInto('t' as never)
        .values({ x: 1 } as never)
        .execute();
      const read = sql`select count(*) as n from t`.execute(db.kysely);
      const write = sql`insert into t (x) values (2)`.execute(db.kysely);
      const other = db.kysely.transaction().execute(async (t) => sql`insert into t (x) values (3)`.execute(t));
      await read;
      await sleep(10);
      assert.equal(db.writersWaiting?.(), 2, 'the write and the transaction wait; the read went beside');
      await trx.commit().execute();
      await Promise.all([write, other]);
      assert.equal(db.writersWaiting?.(), 0);
    });
  });

  it('holds on while no write waits, and ends for one that does', async () => {
    await withFileDb(async (db) => {
      const slices = new ImportSlices(db.kysely, async () => {}, { writersWaiting: db.writersWaiting, sliceMs: 50, aloneMs: 2000 });
      const trx = await slices.begin();
      await trx
        .insertInto('t' as never)
        .values({ x: 1 } as never)
        .execute();
      await sleep(120);
      assert.equal(slices.due, false, 'past SLICE_MS with no write waiting: the slice goes on');
      const neighbour = sql`insert into t (x) values (2)`.execute(db.kysely);
      await sleep(10);
      assert.equal(slices.due, true, 'a write waits: the slice commits at the end of the batch');
      await slices.next(true);
      await sleep(10);
      assert.equal(slices.due, false, 'the next slice begins after the waiting write, and waits SLICE_MS again');
      await slices.commit();
      await neighbour;
      const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely);
      assert.equal(rows[0]?.n, 2);
    });
  });

  it('ends a slice after SLICE_ALONE_MS however quiet, and after SLICE_MS without a queue to look at (PostgreSQL)', async () => {
    await withFileDb(async (db) => {
      const alone = new ImportSlices(db.kysely, async () => {}, { writersWaiting: db.writersWaiting, sliceMs: 20, aloneMs: 100 });
      await alone.begin();
      await sleep(40);
      assert.equal(alone.due, false);
      await sleep(80);
      assert.equal(alone.due, true);
      await alone.commit();
      const unknown = new ImportSlices(db.kysely, async () => {}, { sliceMs: 20, aloneMs: 100 });
      await unknown.begin();
      await sleep(40);
      assert.equal(unknown.due, true);
      await unknown.commit();
    });
  });
});
