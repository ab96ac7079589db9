// The jobs' claim (repositories/service/jobs.ts, claimJobs; issue 36): fair across organizations (the one
// with the fewest jobs running on any node first, then the oldest job), never a job under another
// live lease, and a job whose lease ran out (its node died) again; two workers claiming at once
// take disjoint jobs (SKIP LOCKED on PostgreSQL, the write lock on SQLite). A job whose every run
// lost its lease (JOB_MAX_ATTEMPTS) ends as failed instead of being handed to yet another node; a
// run given back (a node stopping) does not count.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { claimJobs, failAbandonedJobs, releaseJob } from '../../src/storage/db/repositories/service/jobs.ts';

const NOW = 1_800_000_000_000;

for (const dialect of dialects) {
  describe(`claiming jobs (${dialect})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(() => database?.drop());

    async function job(id: string, org: string, createdAt: number, lease?: { owner: string; until: number }, attempts = 0) {
      await database.db.kysely
        .insertInto('jobs')
        .values({
          id,
          organization_id: org,
          kind: 'vulnerabilities.import',
          status: lease ? 'running' : 'queued',
          input: '{}',
          result: null,
          error: null,
          credential_id: 'cred',
          created_at: createdAt,
          lease_owner: lease?.owner ?? null,
          lease_until: lease?.until ?? null,
          attempts,
        })
        .execute();
    }
    const claim = (owner: string, limit: number) =>
      claimJobs(database.db.kysely, dialect, { owner, now: NOW, leaseUntil: NOW + 60_000, limit, maxAttempts: 3 }).then((rows) =>
        rows.map((r) => r.id),
      );

    const sorted = (ids: string[]) => [...ids].sort();

    test('the organization with the fewest running first, then the oldest job; live leases are left alone, expired ones taken', async () => {
      await job('a-running', 'org-a', NOW - 10_000, { owner: 'node-1', until: NOW + 60_000 });
      await job('a-1', 'org-a', NOW - 9000);
      await job('a-2', 'org-a', NOW - 8000);
      await job('b-1', 'org-b', NOW - 1000);
      await job('c-dead', 'org-c', NOW - 500, { owner: 'dead-node', until: NOW - 1 });
      // org-a runs one already: org-b's and org-c's jobs go first, though org-a's are older
      assert.deepEqual(sorted(await claim('node-2', 2)), ['b-1', 'c-dead']);
      // then org-a's, and never the one under node-1's live lease
      assert.deepEqual(sorted(await claim('node-3', 5)), ['a-1', 'a-2']);
      assert.deepEqual(await claim('node-4', 5), []);
      const dead = await database.db.kysely
        .selectFrom('jobs')
        .select(['lease_owner', 'attempts'])
        .where('id', '=', 'c-dead')
        .executeTakeFirstOrThrow();
      assert.equal(dead.lease_owner, 'node-2');
      assert.equal(Number(dead.attempts), 1);
    });

    test('two workers claiming at once take disjoint jobs', async () => {
      for (let i = 0; i < 6; i++) await job(`race-${i}`, `org-race-${i % 3}`, NOW - 100 + i);
      const [first, second] = await Promise.all([claim('racer-1', 3), claim('racer-2', 3)]);
      const all = [...first, ...second];
      assert.equal(new Set(all).size, all.length, `no job twice: ${JSON.stringify({ first, second })}`);
      assert.ok(all.length >= 3, `${all.length} claimed`);
    });

    test('a job whose last run lost its lease is failed, not claimed again; a run given back does not count', async () => {
      const state = (id: string) =>
        database.db.kysely
          .selectFrom('jobs')
          .select(['status', 'attempts', 'error', 'finished_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      await database.db.kysely.deleteFrom('jobs').execute(); // the earlier tests' jobs
      await job('spent', 'org-spent', NOW - 50, { owner: 'crashed-node', until: NOW - 1 }, 3);
      await job('one-left', 'org-spent', NOW - 40, { owner: 'crashed-node', until: NOW - 1 }, 2);
      await job('still-held', 'org-spent', NOW - 30, { owner: 'live-node', until: NOW + 60_000 }, 3);
      // the spent job is not handed out, even before it is failed
      assert.deepEqual(await claim('node-5', 5), ['one-left']);
      assert.equal(await failAbandonedJobs(database.db.kysely, NOW, 3, '{"code":"internal_error"}'), 1);
      const spent = await state('spent');
      assert.equal(spent.status, 'failed');
      assert.equal(spent.error, '{"code":"internal_error"}');
      assert.equal(Number(spent.finished_at), NOW);
      // a live lease is its node's, however many runs it took
      assert.equal((await state('still-held')).status, 'running');
      // 'one-left' is on its third run now; given back (its node stopping), it is queued with two runs counted
      assert.equal(Number((await state('one-left')).attempts), 3);
      await releaseJob(database.db.kysely, 'one-left', 'node-5');
      const released = await state('one-left');
      assert.equal(released.status, 'queued');
      assert.equal(Number(released.attempts), 2);
    });
  });
}
