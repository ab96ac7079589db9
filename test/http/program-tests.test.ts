// Program documents, tests end to end (issue 25): an apply creates tests that GET /v1/tests/{id}
// shows with every field, resource and expansion, under the ID `test_<key>_<tag>`; a re-apply
// writes nothing; a change records test.status_changed and test.updated; evidence names the tests
// that collect it; prune deletes a test with its links; bad input names JSON pointers. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { dataVersions, programContext, programVerbs, rejection, rowCounts } from '../harness/program.ts';
import { storedEvents } from '../harness/events.ts';

const NOW = Date.UTC(2026, 0, 15);
const DAY = 86_400_000;

const doc = () => ({
  version: 1,
  entities: [{ key: 'payments', name: 'Payments' }],
  people: [
    { key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' },
    { key: 'bob', name: 'Bob Noyce', email: 'bob@example.com' },
  ],
  risks: [{ key: 'breach', name: 'Data breach' }],
  frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [{ key: 'CC6.1', code: 'CC6.1', name: 'Logical access' }] }],
  tests: [
    {
      key: 'aws_root_mfa',
      name: 'AWS root account has MFA',
      kind: 'cloud',
      result: 'fix_required' as string,
      applications: ['AWS', 'Okta'],
      description: 'Checks the root account.',
      remediation: 'Turn on MFA.',
      notes: 'Owned by platform',
      effortEstimate: 'low',
      lastScannedOn: NOW - DAY,
      assignees: [{ person: 'ada', isPrimary: true }],
      entities: ['payments'],
      requirements: ['soc2/CC6.1'],
      risks: ['breach'],
      tickets: [{ ticketId: 'SEC-7', source: 'jira', url: 'https://jira.example.com/browse/SEC-7' }],
      resources: [
        {
          resourceId: 'arn:aws:iam::1:root',
          name: 'root',
          status: 'fix_required',
          lastScannedAt: NOW - DAY,
          firstDetected: NOW - 20 * DAY,
          assignees: ['bob'],
          tags: ['env:prod'],
          region: 'us-east-1',
          service: 'iam',
          accountID: '123456789012',
          environment: 'production',
          entities: ['payments'],
          link: 'https://console.aws.example.com/iam',
          description: 'The root user',
        },
        { resourceId: 'arn:aws:iam::2:root', name: 'another root', status: 'passing' },
      ],
      history: [
        { scannedOn: NOW - 2 * DAY, status: 'passing' },
        { scannedOn: NOW - DAY, status: 'fix_required' },
      ],
      addedOn: NOW - 300 * DAY,
    },
    { key: 'okta_mfa', name: 'Okta enforces MFA', result: 'passing', integrationFailing: true },
    { key: 'old_check', name: 'Old check', result: 'ignored', ignoreReason: 'Not applicable' },
  ],
  evidence: [{ key: 'mfa-report', name: 'MFA report', tests: ['aws_root_mfa', 'okta_mfa'] }],
});

for (const dialect of dialects) {
  describe(`program documents: tests (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let org: string;
    let verbs: ReturnType<typeof programVerbs>;
    let rootId: string;

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

    test('apply creates tests that GET shows with every field, resource and expansion', async () => {
      const plan = await verbs.apply(doc());
      assert.deepEqual(plan.counts.tests, { created: 3, updated: 0, deleted: 0, unchanged: 0 });
      rootId = plan.changes.find((c) => c.key === 'aws_root_mfa')!.id;
      assert.match(rootId, /^test_aws_root_mfa_[0-9a-f]+$/);
      const res = await api(
        server.url,
        `/v1/tests/${rootId}?fields=tickets,mappedRisks,testHistory&resourceStatus=fix_required,passing,ignored`,
        token,
      );
      assert.equal(res.status, 200);
      const t = res.body.data;
      assert.equal(t.testName, 'AWS root account has MFA');
      assert.equal(t.status, 'fix_required');
      assert.deepEqual(t.applications, [{ name: 'AWS' }, { name: 'Okta' }]);
      assert.deepEqual(t.assignees, [{ name: 'Ada Lovelace', email: 'ada@example.com', isPrimary: true }]);
      assert.deepEqual(
        t.entities.map((e: any) => e.entityName),
        ['Payments'],
      );
      assert.deepEqual(
        t.mappedRequirements.map((r: any) => r.requirementCode),
        ['CC6.1'],
      );
      assert.equal(t.description, 'Checks the root account.');
      assert.equal(t.remediation, 'Turn on MFA.');
      assert.equal(t.notes, 'Owned by platform');
      assert.equal(t.effortEstimate, 'low');
      assert.equal(t.lastScannedOn, NOW - DAY);
      assert.equal(t.addedOn, NOW - 300 * DAY);
      assert.equal(t.modifiedOn, null);
      assert.deepEqual(t.tickets, [{ ticketId: 'SEC-7', source: 'jira', url: 'https://jira.example.com/browse/SEC-7' }]);
      assert.deepEqual(
        t.mappedRisks.map((r: any) => r.riskName),
        ['Data breach'],
      );
      assert.deepEqual(t.testHistory, [
        { scannedOn: NOW - 2 * DAY, status: 'passing' },
        { scannedOn: NOW - DAY, status: 'fix_required' },
      ]);
      assert.equal(t.resources.length, 2);
      const [another, root] = t.resources;
      assert.deepEqual(another, {
        resourceId: 'arn:aws:iam::2:root',
        name: 'another root',
        status: 'passing',
        assignees: [],
        tags: [],
        entities: [],
      });
      assert.deepEqual(root.assignees, [{ name: 'Bob Noyce', email: 'bob@example.com' }]);
      assert.equal(root.accountID, '123456789012');
      assert.equal(root.environment, 'production');
      assert.deepEqual(root.tags, ['env:prod']);
      assert.equal(root.entities[0].entityName, 'Payments');
      const okta = (await api(server.url, '/v1/tests?fields=ignoreReason', token)).body.data;
      assert.equal(okta.find((x: any) => x.testName === 'Okta enforces MFA').status, 'affected');
      assert.equal(okta.find((x: any) => x.testName === 'Old check').ignoreReason, 'Not applicable');
      const evidenceId = plan.changes.find((c) => c.key === 'mfa-report')!.id;
      const mapped = (await api(server.url, `/v1/evidence/${evidenceId}?fields=mappedTests`, token)).body.data.mappedTests;
      assert.deepEqual(
        mapped.map((m: any) => [m.testName, m.status]),
        [
          ['AWS root account has MFA', 'fix_required'],
          ['Okta enforces MFA', 'affected'],
        ],
      );
    });

    test('the same document again writes no row, records no event and moves no data version', async () => {
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const events = (await storedEvents(server.database, org)).length;
      const plan = await verbs.apply(doc());
      assert.equal(plan.changed, false);
      assert.deepEqual(plan.counts.tests, { created: 0, updated: 0, deleted: 0, unchanged: 3 });
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);
      assert.equal((await storedEvents(server.database, org)).length, events);
      const exported = await verbs.export();
      assert.deepEqual(exported.tests!.map((t) => t.key).sort(), ['aws_root_mfa', 'okta_mfa', 'old_check']);
      assert.equal((await verbs.plan(exported)).changed, false);
    });

    test('a change records test.status_changed and test.updated with the GET fields', async () => {
      const changed = doc();
      changed.tests[0].result = 'passing';
      changed.tests[0].resources![0].status = 'passing';
      const seen = (await storedEvents(server.database, org)).length;
      await verbs.apply(changed);
      const events = (await storedEvents(server.database, org)).slice(seen);
      const status = events.find((e) => e.type === 'test.status_changed')!;
      assert.equal(status.resourceId, rootId);
      assert.deepEqual(status.data, { before: 'fix_required', after: 'passing' });
      const updated = events.find((e) => e.type === 'test.updated')!;
      assert.deepEqual(Object.keys((updated.data as any).changes).sort(), ['modifiedOn', 'resources']);
      const t = (await api(server.url, `/v1/tests/${rootId}?resourceStatus=passing`, token)).body.data;
      assert.equal(t.status, 'passing');
      assert.equal(t.resources.length, 2);
      assert.equal(t.modifiedOn, NOW);
    });

    test('prune deletes a test the document does not list, with its links', async () => {
      const only = doc();
      only.tests = only.tests.filter((t) => t.key !== 'okta_mfa');
      const plan = await verbs.apply({ version: 1, tests: only.tests }, true);
      assert.deepEqual(plan.counts.tests, { created: 0, updated: 1, deleted: 1, unchanged: 1 });
      const list = (await api(server.url, '/v1/tests', token)).body.data;
      assert.deepEqual(list.map((t: any) => t.testName).sort(), ['AWS root account has MFA', 'Old check']);
      const exported = await verbs.export();
      assert.deepEqual(exported.evidence![0].tests, ['aws_root_mfa']);
    });

    test('bad input is refused with JSON pointers, and nothing is written', async () => {
      const rows = await rowCounts(server, org);
      const bad = doc();
      (bad.tests[0] as any).key = 'Not A Slug';
      (bad.tests[1] as any).result = 'affected';
      (bad.tests[0].resources![0] as any).colour = 'red';
      const schema = await rejection(verbs.apply(bad));
      assert.deepEqual(schema.details.map((d) => d.field).sort(), ['/tests/0/key', '/tests/0/resources/0/colour', '/tests/1/result']);
      const refs = doc();
      refs.tests[0].resources![0].assignees = ['nobody'];
      refs.tests[0].risks = ['flood'];
      refs.evidence[0].tests = ['no_such_test'];
      const refError = await rejection(verbs.apply(refs));
      assert.deepEqual(refError.details.map((d) => d.field).sort(), [
        '/evidence/0/tests/0',
        '/tests/0/resources/0/assignees/0',
        '/tests/0/risks/0',
      ]);
      assert.deepEqual(await rowCounts(server, org), rows);
    });
  });
}
