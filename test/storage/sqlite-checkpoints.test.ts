// A server's SQLite commits never copy the WAL back into the database file themselves: a thread of
// its own does (src/storage/db/sqlite-checkpoints.ts, issue 36), so that a commit does not hold the
// event loop for the copy (23-47 ms in an import's slices before). What a user depends on: the
// commit returns with the data in the WAL, the file gets it within moments without anything else
// being written, a checkpoint is not taken for another process's commit (cached answers and
// grants stay proved: the change stamp does not move), and closing the database ends the thread.
// On the code before, the commit that passed 1,000 pages of WAL copied them into the file itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDb } from '../../src/storage/db/connect.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a server's commits leave the checkpoints to their thread; the change stamp does not move with them", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-checkpoints-'));
  const file = path.join(dir, 'cds.sqlite');
  const errors: Error[] = [];
  const db = openDb({ sqlitePath: file, checkpointInThread: { onError: (err) => errors.push(err) } });
  try {
    await sql`create table blobs (id integer primary key, body text not null)`.execute(db.kysely);
    await sleep(300); // the table's creation checkpointed: the file's size is what the data is measured against
    const before = fs.statSync(file).size;
    // about 8 MiB in one transaction: 2,000 pages of WAL, twice SQLite's own checkpoint threshold
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 64; i++) await sql`insert into blobs (body) values (${'x'.repeat(128 * 1024)})`.execute(trx);
    });
    const atCommit = fs.statSync(file).size;
    assert.ok(atCommit - before < 1024 * 1024, `the commit copied ${atCommit - before} bytes into the file itself`);
    const stamp = db.changeStamp!();
    let copied = atCommit;
    for (let i = 0; i < 50 && copied - before < 8 * 1024 * 1024; i++) {
      await sleep(100);
      copied = fs.statSync(file).size;
    }
    assert.ok(copied - before >= 8 * 1024 * 1024, `the thread copied only ${copied - before} bytes in 5 s`);
    await sleep(10);
    assert.equal(db.changeStamp!(), stamp, 'a checkpoint is not a commit: the change stamp stays');
    const rows = await sql<{ n: number }>`select count(*) as n from blobs`.execute(db.kysely);
    assert.equal(Number(rows.rows[0]?.n), 64);
  } finally {
    await db.close();
  }
  assert.deepEqual(errors, []);
  // closed: the last connection's close checkpointed and removed the WAL, as SQLite does
  assert.equal(fs.existsSync(`${file}-wal`), false);
  fs.rmSync(dir, { recursive: true, force: true });
});
