// The jobs' claim (repositories/service/jobs.ts, claimJobs; issue 36): fair across organizations (the one
// with the fewest jobs running on any node first, then the oldest job), never a job under another
// live lease, and a job whose lease ran out (its node died) again; two workers claiming at once
// take disjoint jobs (SKIP LOCKED on PostgreSQL, the write lock on SQLite).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { claimJobs } from '../../src/storage/db/repositories/service/jobs.ts';

const NOW = 1_800_000_000_000;

for (const dialect of dialects) {
  describe(`claiming jobs (${dialect})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(() => database?.drop());

    async function job(id: string, org: string, createdAt: number, lease?: { owner: string; until: number }) {
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
        })
        .execute();
    }
    const claim = (owner: string, limit: number) =>
      claimJobs(database.db.kysely, dialect, { owner, now: NOW, leaseUntil: NOW + 60_000, limit }).then((rows) => rows.map((r) => r.id));

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
  });
}
