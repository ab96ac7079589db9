// `cds migrate status` lists every migration, applied (when) or pending, without applying any; and
// a database that a newer version migrated (it names a migration this build does not know) is
// refused by `cds migrate`, by `cds migrate status` and by a server start, each naming the unknown
// migration and the version to run. On every engine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli, runServerProcessToExit } from '../harness/process.ts';
import { MIGRATION_NAMES } from '../../src/storage/db/migrate.ts';

const OLD = '0006_idempotency_outcome';
const FUTURE = '9999_from_a_newer_version';

describe('cds migrate status and newer databases', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`(${dialect})`, { concurrency: 1 }, () => {
      let database: TestDatabase;
      const cds = (...args: string[]) => runCli(args, database.env);

      before(async () => {
        database = await createTestDatabase(dialect, OLD);
      });
      after(async () => {
        await database?.drop();
      });

      it('lists the applied migrations with their time and the others as pending, and applies none', async () => {
        const oldCount = MIGRATION_NAMES.indexOf(OLD) + 1;
        for (let run = 0; run < 2; run++) {
          const res = await cds('migrate', 'status', '--json');
          assert.equal(res.code, 0, res.stderr);
          const status = JSON.parse(res.stdout);
          assert.deepEqual(
            status.migrations.map((m: { name: string }) => m.name),
            MIGRATION_NAMES,
          );
          for (const m of status.migrations.slice(0, oldCount)) assert.ok(!Number.isNaN(Date.parse(m.appliedAt)), m.appliedAt);
          assert.deepEqual(
            status.migrations.slice(oldCount).map((m: { appliedAt: unknown }) => m.appliedAt),
            MIGRATION_NAMES.slice(oldCount).map(() => null),
            'still pending after asking twice: status applies nothing',
          );
          assert.equal(status.pending, MIGRATION_NAMES.length - oldCount);
        }
        const text = await cds('migrate', 'status');
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, new RegExp(`${MIGRATION_NAMES.at(-1)}\\s+pending`));
        assert.match(text.stdout, new RegExp(`${OLD}\\s+\\d{4}-\\d{2}-\\d{2}T`));
        assert.match(text.stdout, /\d+ pending: "cds migrate" applies them/);
      });

      it('after cds migrate, nothing is pending', async () => {
        const migrate = await cds('migrate');
        assert.equal(migrate.code, 0, migrate.stderr);
        const status = JSON.parse((await cds('migrate', 'status', '--json')).stdout);
        assert.equal(status.pending, 0);
        assert.match((await cds('migrate', 'status')).stdout, /at the latest migration/);
        assert.match((await cds('help', 'migrate', 'status')).stdout, /Usage: cds migrate status \[--json\]/);
      });

      it('a database with a migration this build does not know is refused by cds and by the server, naming the version to run', async () => {
        await sql`insert into kysely_migration (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`.execute(
          database.db.kysely,
        );
        await sql`insert into service_versions (version, latest_migration, migrated_at) values ('9.9.9', ${FUTURE}, ${Date.now()})`.execute(
          database.db.kysely,
        );
        const expected = new RegExp(`newer version.*${FUTURE}.*Run version 9\\.9\\.9 or later`, 's');
        for (const args of [['migrate'], ['migrate', 'status'], ['org', 'list']]) {
          const res = await cds(...args);
          assert.equal(res.code, 1, `cds ${args.join(' ')}: ${res.stdout}`);
          assert.match(res.stderr, expected, `cds ${args.join(' ')}`);
          assert.doesNotMatch(res.stderr, /\n\s+at /, 'a message, not a stack trace');
        }
        const start = await runServerProcessToExit({ database });
        assert.equal(start.code, 1, start.stdout);
        assert.match(start.stderr, expected);
        // the refused start changed nothing: the unknown migration is still the last one recorded
        const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db.kysely);
        assert.equal(rows.rows.at(-1)?.name, FUTURE);
      });
    });
  }
});
