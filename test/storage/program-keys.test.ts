// The program_keys repository (migration 0017) on every engine: keys are per organization and
// kind, a record has one key per kind, and deleting a record's keys leaves the others.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import { deleteProgramKeys, insertProgramKeys, loadProgramKeys } from '../../src/storage/db/repositories/program/program-keys.ts';

for (const dialect of dialects) {
  describe(`program_keys (${dialect})`, () => {
    let database: TestDatabase;
    let a: string;
    let b: string;
    before(async () => {
      database = await createTestDatabase(dialect);
      const ctx = { db: database.db, region: 'us' as const, now: Date.now };
      a = (await createOrganization({ ctx, input: { name: 'A' } })).id;
      b = (await createOrganization({ ctx, input: { name: 'B' } })).id;
    });
    after(() => database.drop());

    test('keys are kept per organization and kind, and deleted by record', async () => {
      const db = database.db;
      await db.kysely.transaction().execute(async (trx) => {
        await insertProgramKeys(db, trx, a, [
          { kind: 'control', key: 'access-review', recordId: 'c-1' },
          { kind: 'policy', key: 'access-review', recordId: 'p-1' },
          { kind: 'control', key: 'backups', recordId: 'c-2' },
        ]);
        await insertProgramKeys(db, trx, b, [{ kind: 'control', key: 'access-review', recordId: 'c-9' }]);
      });
      const sortByKey = (rows: Array<{ kind: string; key: string; recordId: string }>) =>
        [...rows].sort((x, y) => `${x.kind}/${x.key}`.localeCompare(`${y.kind}/${y.key}`));
      assert.deepEqual(sortByKey(await loadProgramKeys(db.kysely, a)), [
        { kind: 'control', key: 'access-review', recordId: 'c-1' },
        { kind: 'control', key: 'backups', recordId: 'c-2' },
        { kind: 'policy', key: 'access-review', recordId: 'p-1' },
      ]);
      // one key per record and kind
      await assert.rejects(
        db.kysely.transaction().execute((trx) => insertProgramKeys(db, trx, a, [{ kind: 'control', key: 'other', recordId: 'c-1' }])),
      );
      await deleteProgramKeys(db.kysely, a, 'control', ['c-1']);
      assert.deepEqual(sortByKey(await loadProgramKeys(db.kysely, a)), [
        { kind: 'control', key: 'backups', recordId: 'c-2' },
        { kind: 'policy', key: 'access-review', recordId: 'p-1' },
      ]);
      assert.deepEqual(await loadProgramKeys(db.kysely, b), [{ kind: 'control', key: 'access-review', recordId: 'c-9' }]);
    });
  });
}
