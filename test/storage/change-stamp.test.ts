// SQLite's change stamp (src/storage/db/sqlite-change-stamp.ts), which decides whether a grant kept
// in memory may still be trusted: it changes with every write of this connection at once, and with
// every commit of another connection (another process, such as `cds`) from the next turn of the
// event loop; reads change nothing, so warm requests keep their grants.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDb } from '../../src/storage/db/connect.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SQLite change stamp', () => {
  it('changes with own writes at once, with other connections’ commits from the next turn, never with reads', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-stamp-'));
    const file = path.join(dir, 'stamp.sqlite');
    const server = openDb({ sqlitePath: file });
    const other = openDb({ sqlitePath: file });
    try {
      await sql`create table t (x integer)`.execute(server.kysely);
      await nextTurn();
      const stamp = server.changeStamp!;

      const start = stamp();
      await sql`select count(*) from t`.execute(server.kysely);
      await nextTurn();
      assert.equal(stamp(), start, 'a read changes nothing');

      await sql`insert into t values (1)`.execute(server.kysely);
      const afterOwn = stamp();
      assert.notEqual(afterOwn, start, 'an own write changes it at once');
      await sql`update t set x = 2 returning x`.execute(server.kysely);
      assert.notEqual(stamp(), afterOwn, 'a write with RETURNING counts as a write');

      await nextTurn();
      const beforeOther = stamp();
      await sql`insert into t values (3)`.execute(other.kysely);
      await nextTurn();
      assert.notEqual(stamp(), beforeOther, "another connection's commit changes it on the next turn");

      // A reading is never shared for long, even within what looks like one turn.
      const held = stamp();
      await sql`insert into t values (4)`.execute(other.kysely);
      const until = performance.now() + 5;
      while (performance.now() < until) {}
      assert.notEqual(stamp(), held, 'a reading older than a millisecond is taken again');
    } finally {
      await server.close();
      await other.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
