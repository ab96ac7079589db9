// Program documents and events (issue 25): every change an apply makes records its events in the
// same transaction, on the feed; a control that flips because of an apply is a
// control.status_changed, a framework whose progress moves a framework.progress_changed, and a plan
// announces both as effects; an apply that fails at its last statement leaves the organization
// exactly as it was. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
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

/** A document that creates one record of each kind with created/deleted events (and people, which have none). */
const lifecycleDoc = () => ({
  version: 1,
  people: [{ key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' }],
  frameworks: [{ key: 'iso', name: 'ISO 27001', requirements: [{ key: 'A.5', code: 'A.5', name: 'Policies' }] }],
  controls: [
    {
      key: 'mfa',
      code: 'CTL-9',
      name: 'MFA everywhere',
      domain: 'Identity Management',
      functionGrouping: 'protect',
      requirements: ['iso/A.5'],
      assignees: [{ person: 'ada', isPrimary: true }],
    },
  ],
  policies: [
    { key: 'mfa-policy', customId: 'POL-9', name: 'MFA policy', status: 'published', controls: ['mfa'], requirements: ['iso/A.5'] },
  ],
  evidence: [{ key: 'mfa-report', name: 'MFA report', controls: ['mfa'] }],
  tests: [{ key: 'okta_mfa', name: 'Okta enforces MFA', kind: 'cloud', result: 'passing', controls: ['mfa'] }],
  vulnerabilities: [{ key: 'api%23VUL-0009', title: 'Weak TLS', severity: 'low' }],
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

  describe(`program documents: created and deleted events (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let org: string;
    let verbs: ReturnType<typeof programVerbs>;
    let ids: Map<string, string>;

    before(async () => {
      server = await startServer({ dialect, now: () => NOW });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      org = client.organizationId;
      token = await getToken(server.url, client);
      verbs = programVerbs(
        programContext(server, client.credentialId, () => NOW),
        org,
      );
    });
    after(() => server.close());

    test('an apply that fails at its last statement records no created event and creates nothing', async () => {
      const rows = await rowCounts(server, org);
      const restore = await failFrameworkEvents(server);
      try {
        await assert.rejects(verbs.apply(lifecycleDoc()));
      } finally {
        await restore();
      }
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await storedEvents(server.database, org), []);
    });

    test('an apply that creates records records each one’s .created event, with the record as its GET answers it', async () => {
      const plan = await verbs.apply(lifecycleDoc());
      ids = new Map(plan.changes.map((c) => [c.key, c.id]));
      const { events } = await readAll(server, token);
      assert.deepEqual(
        events.map((e: any) => [e.type, e.resourceId]),
        [
          ['framework.created', ids.get('iso')],
          ['control.created', ids.get('mfa')],
          ['policy.created', ids.get('mfa-policy')],
          ['evidence.created', ids.get('mfa-report')],
          ['test.created', ids.get('okta_mfa')],
          ['vulnerability.created', 'api%23VUL-0009'],
        ],
      );
      const data = new Map(events.map((e: any) => [e.type, e.data]));
      const get = async (path: string) => (await api(server.url, path, token)).body.data;
      assert.deepEqual(data.get('control.created'), { control: await get(`/v1/controls/${ids.get('mfa')}`) });
      assert.deepEqual(data.get('policy.created'), { policy: await get(`/v1/policies/${ids.get('mfa-policy')}`) });
      assert.deepEqual(data.get('evidence.created'), { evidence: await get(`/v1/evidence/${ids.get('mfa-report')}`) });
      assert.deepEqual(data.get('test.created'), { test: await get(`/v1/tests/${ids.get('okta_mfa')}`) });
      const frameworks = await get('/v1/frameworks');
      assert.deepEqual(data.get('framework.created'), { framework: frameworks.find((f: any) => f.frameworkId === ids.get('iso')) });
      // the framework's progress is the one the apply leaves: its policy published, its test passing
      assert.equal(data.get('framework.created').framework.complianceProgress.policies.published, 1);
      // every event of the apply was written by its transaction: one occurredAt, consecutive
      const stored = await storedEvents(server.database, org);
      assert.deepEqual(
        stored.map((e) => e.seq),
        stored.map((_, i) => stored[0].seq + i),
      );
    });

    test('re-applying the same document records nothing', async () => {
      const seen = (await storedEvents(server.database, org)).length;
      const plan = await verbs.apply(lifecycleDoc());
      assert.equal(plan.changed, false);
      assert.equal((await storedEvents(server.database, org)).length, seen);
    });

    test('a prune records each deleted record’s .deleted event with its ID', async () => {
      const seen = (await storedEvents(server.database, org)).length;
      await verbs.apply({ version: 1, frameworks: [], controls: [], policies: [], evidence: [], tests: [], vulnerabilities: [] }, true);
      const fresh = (await storedEvents(server.database, org)).slice(seen);
      assert.deepEqual(
        fresh.map((e) => [e.type, e.resourceId, e.data]),
        [
          ['framework.deleted', ids.get('iso'), { frameworkId: ids.get('iso') }],
          ['control.deleted', ids.get('mfa'), { controlId: ids.get('mfa') }],
          ['policy.deleted', ids.get('mfa-policy'), { policyId: ids.get('mfa-policy') }],
          ['evidence.deleted', ids.get('mfa-report'), { evidenceId: ids.get('mfa-report') }],
          ['test.deleted', ids.get('okta_mfa'), { testId: ids.get('okta_mfa') }],
          ['vulnerability.deleted', 'api%23VUL-0009', { vulnerabilityId: 'api%23VUL-0009' }],
        ],
      );
      // the feed gives them too
      const { events } = await readAll(server, token, { types: 'control.deleted,vulnerability.deleted' });
      assert.deepEqual(
        events.map((e: any) => e.type),
        ['control.deleted', 'vulnerability.deleted'],
      );
      // and pruning again records nothing
      const after = (await storedEvents(server.database, org)).length;
      await verbs.apply({ version: 1, frameworks: [], controls: [], policies: [], evidence: [], tests: [], vulnerabilities: [] }, true);
      assert.equal((await storedEvents(server.database, org)).length, after);
    });
  });
}
