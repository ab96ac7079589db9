// The demo organization is generated relative to the clock of whoever makes it (`cds demo`, the
// server's first start), so a node running the time scheduler finds nothing due in a fresh demo:
// its first start moves no record, and the documented numbers hold on any day. Checked at
// instants where periods turn (a month's, a quarter's and a year's last second, a leap day).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { listDueOrganizations, nextDueAt } from '../../src/storage/db/repositories/service/time-due.ts';
import { createTestDatabase, dialects } from '../harness/engines.ts';
import { runCli } from '../harness/process.ts';

const INSTANTS = [
  Date.UTC(2026, 10, 27, 10, 14),
  Date.UTC(2026, 11, 31, 23, 59, 59, 999),
  Date.UTC(2027, 5, 30, 23, 59, 59, 999),
  Date.UTC(2028, 1, 29, 12),
];
const DAY = 86_400_000;

for (const dialect of dialects) {
  describe(`a demo made at any instant has nothing due at that instant (${dialect})`, () => {
    for (const at of INSTANTS) {
      it(new Date(at).toISOString(), async () => {
        const database = await createTestDatabase(dialect);
        try {
          const k = database.db.kysely;
          const demo = await createDemoOrganization({ db: database.db, region: 'us', now: () => at }, { scale: 1 });
          const next = await nextDueAt(k);
          assert.ok(
            next === undefined || next > at,
            `the first due work is after the demo was made (${next && new Date(next).toISOString()})`,
          );
          assert.deepEqual(await listDueOrganizations(k, at, 10), []);

          // and it is a program of that moment, not of a fixed date: its newest attachment is
          // from the days before, and some record falls due within the next year
          const newest = await k
            .selectFrom('attachments')
            .select((eb) => eb.fn.max<number>('evidence_date').as('at'))
            .where('organization_id', '=', demo.organization.id)
            .executeTakeFirstOrThrow();
          assert.ok(
            Number(newest.at) <= at && Number(newest.at) > at - 7 * DAY,
            `newest evidence date ${new Date(Number(newest.at)).toISOString()}`,
          );
          assert.ok(next !== undefined && next < at + 366 * DAY, 'time has work ahead in the demo');
        } finally {
          await database.drop();
        }
      });
    }
  });
}

describe('cds demo --as-of: the instant the demo is made at', () => {
  it('dates the program as of that instant, the same data as a load at that instant', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const at = Date.UTC(2027, 2, 1);
      const run = await runCli(['demo', '--as-of', '2027-03-01', '--json'], { ...database.env, REGION: 'us' });
      assert.equal(run.code, 0, run.stderr);
      const org = JSON.parse(run.stdout).organization.id;
      const k = database.db.kysely;
      const newest = await k
        .selectFrom('attachments')
        .select((eb) => eb.fn.max<number>('evidence_date').as('at'))
        .where('organization_id', '=', org)
        .executeTakeFirstOrThrow();
      assert.ok(
        Number(newest.at) <= at && Number(newest.at) > at - 7 * DAY,
        `newest evidence date ${new Date(Number(newest.at)).toISOString()}`,
      );
      const next = await nextDueAt(k);
      assert.ok(next !== undefined && next > at);
    } finally {
      await database.drop();
    }
  });
});
