// Program documents and events (issue 25): every change an apply makes records its events in the
// same transaction, on the feed; a control that flips because of an apply is a
// control.status_changed, a framework whose progress moves a framework.progress_changed, and a plan
// announces both as effects; an apply that fails at its last statement leaves the organization
// exactly as it was. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dialects } from '../harness/engines.ts';
import { createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { dataVersions, programContext, programVerbs, rowCounts } from '../harness/program.ts';
import { readAll, storedEvents } from '../harness/events.ts';

const NOW = Date.UTC(2026, 0, 15);

const doc = (policyStatus: string, controlName = 'Access reviews') => ({
  version: 1,
  people: [{ key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' }],
  frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [{ key: 'CC6.1', code: 'CC6.1', name: 'Logical access' }] }],
  controls: [
    {
      key: 'access-review',
      code: 'CTL-1',
      name: controlName,
      domain: 'Identity Management',
      functionGrouping: 'protect',
      requirements: ['soc2/CC6.1'],
      assignees: [{ person: 'ada', isPrimary: true }],
    },
  ],
  policies: [
    {
      key: 'access-policy',
      customId: 'POL-1',
      name: 'Access policy',
      status: policyStatus,
      controls: ['access-review'],
      requirements: ['soc2/CC6.1'],
    },
  ],
});

/** Makes the insertion of a framework event fail: the last statement of an apply that moves a framework. */
async function failFrameworkEvents(server: TestServer): Promise<() => Promise<void>> {
  const k = server.database.db.kysely;
  if (server.database.db.dialect === 'postgres') {
    await sql
      .raw(
        `CREATE FUNCTION program_test_fail() RETURNS trigger AS $$ BEGIN
           IF NEW.resource_type = 'framework' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      )
      .execute(k);
    await sql.raw('CREATE TRIGGER program_test_fail BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION program_test_fail()').execute(k);
    return async () => {
      await sql.raw('DROP TRIGGER program_test_fail ON events').execute(k);
      await sql.raw('DROP FUNCTION program_test_fail()').execute(k);
    };
  }
  await sql
    .raw(
      `CREATE TRIGGER program_test_fail BEFORE INSERT ON events WHEN NEW.resource_type = 'framework' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    )
    .execute(k);
  return async () => {
    await sql.raw('DROP TRIGGER program_test_fail').execute(k);
  };
}

for (const dialect of dialects) {
  describe(`program documents: events (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let org: string;
    let verbs: ReturnType<typeof programVerbs>;

    before(async () => {
      server = await startServer({ dialect, now: () => NOW });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      org = client.organizationId;
      token = await getToken(server.url, client);
      verbs = programVerbs(
        programContext(server, client.credentialId, () => NOW),
        org,
      );
      await verbs.apply(doc('published'));
    });
    after(() => server.close());

    test('a policy that moves flips its control: the plan says so, the apply records it on the feed', async () => {
      const ids = new Map((await verbs.plan(doc('published', 'x'))).changes.map((c) => [c.key, c.id]));
      const plan = await verbs.plan(doc('draft'));
      const controlId = ids.get('access-review')!;
      assert.deepEqual(
        plan.effects.controls.map((c) => [c.key, c.before, c.after]),
        [['access-review', 'compliant', 'non_compliant']],
      );
      assert.deepEqual(
        plan.effects.frameworks.map((f) => [f.key, f.before.policies.percentage, f.after.policies.percentage]),
        [['soc2', 100, 0]],
      );
      const seen = (await storedEvents(server.database, org)).length;
      const applied = await verbs.apply(doc('draft'));
      assert.deepEqual(applied.effects, plan.effects);
      const { events } = await readAll(server, token);
      const fresh = events.slice(seen);
      assert.deepEqual(
        fresh.map((e: any) => e.type),
        ['policy.status_changed', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.deepEqual(fresh[0].data, { before: 'published', after: 'draft' });
      assert.equal(fresh[1].resourceId, controlId);
      assert.deepEqual(fresh[1].data, { before: 'compliant', after: 'non_compliant' });
    });

    test('a control whose fields change records control.updated with GET’s field names', async () => {
      const seen = (await storedEvents(server.database, org)).length;
      await verbs.apply(doc('draft', 'Quarterly access reviews'));
      const fresh = (await storedEvents(server.database, org)).slice(seen);
      assert.deepEqual(
        fresh.map((e) => e.type),
        ['control.updated'],
      );
      assert.deepEqual(fresh[0].data.changes.controlName, { before: 'Access reviews', after: 'Quarterly access reviews' });
      assert.deepEqual(fresh[0].data.changes.modifiedOn, { before: null, after: NOW });
    });

    test('an apply that fails at its last statement leaves the organization exactly as it was', async () => {
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const exported = await verbs.export();
      const restore = await failFrameworkEvents(server);
      try {
        await assert.rejects(verbs.apply(doc('published', 'Renamed')));
      } finally {
        await restore();
      }
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);
      assert.deepEqual(await verbs.export(), exported);
    });
  });
}
