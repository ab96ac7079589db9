// An upload waits for SQLite's one writer once before it reads its files (issue 36): the claim of
// its Idempotency-Key and its journal entry (pending_uploads) are one transaction. They were two
// writes, each waiting its turn behind whatever held the writer; beside a bulk importer, whose
// slices hold it 200 ms and to the end of a batch, a small upload waited three turns (two before
// its body, one to record it) and the soak's 3 s request time-out cut one
// (test/process/soak.test.ts). Here the test holds the writer in turns as an import's slices do,
// each queued behind the upload's waiting write: after the upload's first turn, its file must be
// stored before it waits again. SQLite only: PostgreSQL has no one writer to wait for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../harness/server.ts';
import { date, file, startLocalDiskUploads, stopLocalDiskUploads, type Harness } from '../harness/uploads.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an upload beside a writer held in turns (sqlite)', () => {
  let server: TestServer;
  let blobDir: string;
  let h: Harness;
  before(async () => {
    ({ server, blobDir, h } = await startLocalDiskUploads('sqlite', Date.now, 'cds-writer-turns-'));
  });
  after(() => stopLocalDiskUploads(server, blobDir));

  /** A turn of the writer: a transaction held until `release` (as an import's slice holds it). */
  function holdTurn() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken!: () => void;
    const isTaken = new Promise<void>((resolve) => (taken = resolve));
    const done = server.database.db.kysely.transaction().execute(async () => {
      taken();
      await released;
    });
    return { isTaken, release, done };
  }

  const waiting = () => server.database.db.writersWaiting!();
  async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 5000) {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      assert.ok(Date.now() < deadline, `${what}: not within ${ms} ms`);
      await sleep(5);
    }
  }

  test('its file is stored after one turn, then it waits once more to record it', async () => {
    const evidenceId = await h.evidence();
    const first = holdTurn();
    await first.isTaken;
    const answer = h.post(evidenceId, [date(Date.now() - 60_000), file('report.txt', 'a small upload')]);
    await until('the upload waits for the writer', () => waiting() >= 1);
    // the next turn queued behind the upload's write, before the first ends
    const second = holdTurn();
    await until('the second turn is queued', () => waiting() >= 2);
    first.release();
    await first.done;
    await second.isTaken;
    try {
      // The upload had its turn; while the second is held, it reads its body and stores the file.
      // Before, it waited here to write its journal entry, its file not read.
      await until('the file is stored while the second turn holds the writer', async () => (await h.blobKeys()).length === 1);
      await until('the upload waits to record it', () => waiting() >= 1);
    } finally {
      second.release();
      await second.done;
    }
    const res = await answer;
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(await h.pendingCount(), 0, 'the journal entry is gone once the upload is recorded');
  });
});
