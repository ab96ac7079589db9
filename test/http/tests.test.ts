// GET /v1/tests and GET /v1/tests/{testId} over a small, exactly known data set, on every database
// engine: shapes, every filter, field and expansion, resourceStatus, and errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { findingFixtures, T0 } from '../harness/fixtures-findings.ts';

const DAY = 86_400_000;

for (const dialect of dialects) {
  describe(`GET /v1/tests (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let otherTestId: string;
    const ids: Record<string, string> = {};

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000' } });
      const client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      const base = fixtures(server.database.db, client.organizationId);
      const f = findingFixtures(server.database.db, client.organizationId);
      ids.ada = await base.person('Ada Admin', 'ada+grc@example.com');
      ids.bob = await base.person('Bob Builder', 'bob@example.com');
      ids.payments = await base.entity('Payments');
      ids.platform = await base.entity('Platform');
      ids.aws = await f.application('AWS');
      ids.github = await f.application('GitHub');
      ids.okta = await f.application('Okta');
      ids.F1 = await base.framework('Alpha Framework');
      ids.F2 = await base.framework('Beta Framework');
      ids.R1 = await base.requirement(ids.F1, 'A-1');
      ids.R2 = await base.requirement(ids.F2, 'B-1');
      ids.C1 = await base.control('CTL-1', { requirementIds: [ids.R1] });
      ids.risk = await f.risk('Account takeover');

      ids.T1 = await f.testRecord({
        id: 'test_mfa_enabled_aa11',
        name: 'Alpha MFA enabled',
        result: 'passing',
        integrationFailing: true,
        description: 'Checks that MFA is enabled.',
        remediation: 'Enable MFA.',
        notes: 'Runs every 24 hours',
        effortEstimate: 'low',
        lastScannedOn: T0 + 3 * DAY,
        addedOn: T0,
        modifiedOn: T0 + DAY,
        applicationIds: [ids.aws],
        assignees: [{ personId: ids.ada, isPrimary: true }],
        entityIds: [ids.payments],
        tickets: [
          { key: 'SEC-2', source: 'linear', url: 'https://linear.example.com/SEC-2' },
          { key: 'SEC-1', source: 'jira', url: 'https://jira.example.com/browse/SEC-1' },
        ],
        riskIds: [ids.risk],
        resources: [
          {
            resourceId: 'usr_1',
            name: 'alice@example.com',
            status: 'fix_required',
            lastScannedAt: T0 + 3 * DAY,
            firstDetected: T0 + DAY,
            tags: ['prod'],
            region: 'eu-west-1',
            service: 'iam',
            accountId: '123456789012',
            environment: 'production',
            link: 'https://console.example.com/iam/usr_1',
            description: 'IAM user without MFA',
            assignees: [{ personId: ids.bob, isPrimary: true }],
            entityIds: [ids.platform],
          },
          { resourceId: 'usr_2', name: 'bob@example.com', status: 'passing' },
          { resourceId: 'usr_3', name: 'carol@example.com', status: 'ignored' },
          { resourceId: 'usr_0', name: 'aaron@example.com', status: 'fix_required' },
        ],
        history: [
          { scannedOn: T0 + 3 * DAY, status: 'affected' },
          { scannedOn: T0 + 1 * DAY, status: 'fix_required' },
          { scannedOn: T0 + 2 * DAY, status: 'passing' },
        ],
      });
      await base.map('test', ids.T1, { controlIds: [ids.C1], requirementIds: [ids.R1] });
      ids.T2 = await f.testRecord({
        id: 'test_s3_encryption_bb22',
        kind: 'cloud',
        name: 'Beta S3 encryption',
        result: 'fix_required',
        integrationFailing: true,
        applicationIds: [ids.github, ids.aws],
        assignees: [{ personId: ids.bob, isPrimary: true }, { personId: ids.ada }],
        entityIds: [ids.platform, ids.payments],
      });
      await base.map('test', ids.T2, { requirementIds: [ids.R2] });
      ids.T3 = await f.testRecord({
        id: 'test_backups_cc33',
        name: 'Gamma backups',
        result: 'ignored',
        ignoreReason: 'Not applicable to us',
        addedOn: T0 + DAY,
      });
      ids.T4 = await f.testRecord({
        id: 'test_logging_dd44',
        name: 'Delta logging',
        result: 'passing',
        applicationIds: [ids.okta],
        effortEstimate: 'high',
      });
      await base.map('test', ids.T4, { requirementIds: [ids.R1, ids.R2] });

      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      otherToken = await getToken(server.url, other);
      otherTestId = await findingFixtures(server.database.db, other.organizationId).testRecord({
        name: 'Other org test',
        result: 'passing',
      });
    });
    after(() => server.close());

    const listIds = async (query: string) => {
      const res = await api(server.url, `/v1/tests${query}`, token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((t: any) => t.testId);
    };

    test('list: default fields, exact shapes, computed status, ordered by name then ID', async () => {
      const res = await api(server.url, '/v1/tests', token);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        data: [
          {
            testId: ids.T1,
            testName: 'Alpha MFA enabled',
            status: 'affected',
            applications: [{ name: 'AWS' }],
            assignees: [{ name: 'Ada Admin', email: 'ada+grc@example.com', isPrimary: true }],
            entities: [{ entityId: ids.payments, entityName: 'Payments' }],
          },
          {
            testId: ids.T2,
            testName: 'Beta S3 encryption',
            status: 'fix_required',
            applications: [{ name: 'AWS' }, { name: 'GitHub' }],
            assignees: [
              { name: 'Bob Builder', email: 'bob@example.com', isPrimary: true },
              { name: 'Ada Admin', email: 'ada+grc@example.com', isPrimary: false },
            ],
            entities: [
              { entityId: ids.payments, entityName: 'Payments' },
              { entityId: ids.platform, entityName: 'Platform' },
            ],
          },
          { testId: ids.T4, testName: 'Delta logging', status: 'passing', applications: [{ name: 'Okta' }], assignees: [], entities: [] },
          { testId: ids.T3, testName: 'Gamma backups', status: 'ignored', applications: [], assignees: [], entities: [] },
        ],
        meta: { requestId: res.headers.get('x-request-id') },
      });
    });

    test('list: every optional field, only when asked; unset values left out, modifiedOn null', async () => {
      const res = await api(
        server.url,
        '/v1/tests?fields=mappedFrameworkIds,effortEstimate,ignoreReason,addedOn,modifiedOn,ticketsCount',
        token,
      );
      assert.equal(res.status, 200);
      const optional = res.body.data.map((t: any) => {
        const { testId, testName, status, applications, assignees, entities, ...rest } = t;
        return [testName, rest];
      });
      assert.deepEqual(optional, [
        ['Alpha MFA enabled', { mappedFrameworkIds: [ids.F1], effortEstimate: 'low', addedOn: T0, modifiedOn: T0 + DAY, ticketsCount: 2 }],
        ['Beta S3 encryption', { mappedFrameworkIds: [ids.F2], addedOn: T0, modifiedOn: null, ticketsCount: 0 }],
        ['Delta logging', { mappedFrameworkIds: [ids.F1, ids.F2], effortEstimate: 'high', addedOn: T0, modifiedOn: null, ticketsCount: 0 }],
        [
          'Gamma backups',
          { mappedFrameworkIds: [], ignoreReason: 'Not applicable to us', addedOn: T0 + DAY, modifiedOn: null, ticketsCount: 0 },
        ],
      ]);
      for (const field of ['mappedFrameworkIds', 'effortEstimate', 'ignoreReason', 'addedOn', 'modifiedOn', 'ticketsCount']) {
        const one = await api(server.url, `/v1/tests?fields=${field}`, token);
        const keys = new Set(one.body.data.flatMap((t: any) => Object.keys(t)));
        assert.deepEqual([...keys].sort(), ['applications', 'assignees', 'entities', 'status', 'testId', 'testName', field].sort(), field);
      }
    });

    test('status filter uses the computed status; values combine as any', async () => {
      assert.deepEqual(await listIds('?status=affected'), [ids.T1]);
      assert.deepEqual(await listIds('?status=passing'), [ids.T4], 'a passing test with a failing integration is not passing');
      assert.deepEqual(await listIds('?status=fix_required'), [ids.T2], 'a failing integration does not change fix_required');
      assert.deepEqual(await listIds('?status=ignored'), [ids.T3]);
      assert.deepEqual(await listIds('?status=ignored,%20affected'), [ids.T1, ids.T3]);
    });

    test('frameworkIds filter: tests mapped to any of the frameworks', async () => {
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F1}`), [ids.T1, ids.T4]);
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F2}`), [ids.T2, ids.T4]);
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F2},${ids.F1}`), [ids.T1, ids.T2, ids.T4]);
      assert.deepEqual(await listIds('?frameworkIds=00000000-0000-0000-0000-000000000000'), []);
    });

    test('assigneeEmails filter: any assignee, case-insensitive, + sent as %2B', async () => {
      assert.deepEqual(await listIds('?assigneeEmails=ADA%2Bgrc@Example.com'), [ids.T1, ids.T2]);
      assert.deepEqual(await listIds('?assigneeEmails=bob@example.com'), [ids.T2]);
      assert.deepEqual(await listIds('?assigneeEmails=nobody@example.com'), []);
    });

    test('applications filter: application names, case-insensitive, any of them', async () => {
      assert.deepEqual(await listIds('?applications=AWS'), [ids.T1, ids.T2]);
      assert.deepEqual(await listIds('?applications=github'), [ids.T2]);
      assert.deepEqual(await listIds('?applications=okta,%20GitHub'), [ids.T2, ids.T4]);
      assert.deepEqual(await listIds('?applications=Jira'), []);
    });

    test('different filters combine with AND', async () => {
      assert.deepEqual(await listIds(`?applications=aws&status=fix_required,passing`), [ids.T2]);
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F1}&assigneeEmails=ada%2Bgrc@example.com`), [ids.T1]);
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F1}&applications=okta&status=passing`), [ids.T4]);
      assert.deepEqual(await listIds(`?frameworkIds=${ids.F2}&status=affected`), []);
    });

    test('list 400 validation_failed names the parameter', async () => {
      for (const [query, field] of [
        ['status=failing', 'status'],
        ['status=passing,open', 'status'],
        ['fields=resources', 'fields'],
        ['fields=tickets', 'fields'],
        ['frameworkIds=', 'frameworkIds'],
        ['applications=,', 'applications'],
        ['entityIds=x', 'entityIds'],
      ]) {
        const res = await api(server.url, `/v1/tests?${query}`, token);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.details[0].field, field, query);
      }
    });

    test('get-one: default fields; resources default to fix_required; resource assignees are name and email', async () => {
      const res = await api(server.url, `/v1/tests/${ids.T1}`, token);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        testId: ids.T1,
        testName: 'Alpha MFA enabled',
        status: 'affected',
        applications: [{ name: 'AWS' }],
        assignees: [{ name: 'Ada Admin', email: 'ada+grc@example.com', isPrimary: true }],
        entities: [{ entityId: ids.payments, entityName: 'Payments' }],
        mappedFrameworks: [{ frameworkId: ids.F1, frameworkName: 'Alpha Framework' }],
        description: 'Checks that MFA is enabled.',
        remediation: 'Enable MFA.',
        mappedControls: [{ controlId: ids.C1, controlCode: 'CTL-1', controlName: 'Control CTL-1' }],
        mappedRequirements: [
          {
            frameworkId: ids.F1,
            frameworkName: 'Alpha Framework',
            requirementId: ids.R1,
            requirementCode: 'A-1',
            requirementName: 'Requirement A-1',
          },
        ],
        lastScannedOn: T0 + 3 * DAY,
        effortEstimate: 'low',
        notes: 'Runs every 24 hours',
        addedOn: T0,
        modifiedOn: T0 + DAY,
        resources: [
          { resourceId: 'usr_0', name: 'aaron@example.com', status: 'fix_required', assignees: [], tags: [], entities: [] },
          {
            resourceId: 'usr_1',
            name: 'alice@example.com',
            status: 'fix_required',
            lastScannedAt: T0 + 3 * DAY,
            firstDetected: T0 + DAY,
            assignees: [{ name: 'Bob Builder', email: 'bob@example.com' }],
            tags: ['prod'],
            region: 'eu-west-1',
            service: 'iam',
            accountID: '123456789012',
            environment: 'production',
            entities: [{ entityId: ids.platform, entityName: 'Platform' }],
            link: 'https://console.example.com/iam/usr_1',
            description: 'IAM user without MFA',
          },
        ],
      });
      assert.equal('addedBy' in res.body.data, false);
      assert.equal('lastModifiedBy' in res.body.data, false);
    });

    test('get-one: a test with little recorded leaves fields out; arrays stay arrays; cloud tests share the ID space', async () => {
      const res = await api(server.url, `/v1/tests/${ids.T3}`, token);
      assert.deepEqual(res.body.data, {
        testId: ids.T3,
        testName: 'Gamma backups',
        status: 'ignored',
        applications: [],
        assignees: [],
        entities: [],
        mappedFrameworks: [],
        mappedControls: [],
        mappedRequirements: [],
        ignoreReason: 'Not applicable to us',
        addedOn: T0 + DAY,
        modifiedOn: null,
        resources: [],
      });
      const cloud = await api(server.url, `/v1/tests/${ids.T2}`, token);
      assert.equal(cloud.status, 200);
      assert.equal(cloud.body.data.testName, 'Beta S3 encryption');
      assert.deepEqual(cloud.body.data.mappedFrameworks, [{ frameworkId: ids.F2, frameworkName: 'Beta Framework' }]);
    });

    test('resourceStatus: a union of statuses; affected matches no resource on its own', async () => {
      const names = async (statuses: string) => {
        const res = await api(server.url, `/v1/tests/${ids.T1}?resourceStatus=${statuses}`, token);
        assert.equal(res.status, 200, statuses);
        return res.body.data.resources.map((r: any) => [r.name, r.status]);
      };
      assert.deepEqual(await names('passing'), [['bob@example.com', 'passing']]);
      assert.deepEqual(await names('ignored,passing'), [
        ['bob@example.com', 'passing'],
        ['carol@example.com', 'ignored'],
      ]);
      assert.deepEqual(await names('affected'), []);
      assert.deepEqual(await names('affected,passing'), [['bob@example.com', 'passing']]);
      assert.deepEqual(await names('ignored,fix_required,passing,affected'), [
        ['aaron@example.com', 'fix_required'],
        ['alice@example.com', 'fix_required'],
        ['bob@example.com', 'passing'],
        ['carol@example.com', 'ignored'],
      ]);
    });

    test('get-one expansions: tickets, mappedRisks, testHistory (oldest first), only when asked', async () => {
      const res = await api(server.url, `/v1/tests/${ids.T1}?fields=tickets,mappedRisks,testHistory`, token);
      assert.deepEqual(res.body.data.tickets, [
        { ticketId: 'SEC-1', source: 'jira', url: 'https://jira.example.com/browse/SEC-1' },
        { ticketId: 'SEC-2', source: 'linear', url: 'https://linear.example.com/SEC-2' },
      ]);
      assert.deepEqual(res.body.data.mappedRisks, [{ riskId: ids.risk, riskName: 'Account takeover' }]);
      assert.deepEqual(res.body.data.testHistory, [
        { scannedOn: T0 + 1 * DAY, status: 'fix_required' },
        { scannedOn: T0 + 2 * DAY, status: 'passing' },
        { scannedOn: T0 + 3 * DAY, status: 'affected' },
      ]);
      for (const field of ['tickets', 'mappedRisks', 'testHistory']) {
        const one = await api(server.url, `/v1/tests/${ids.T1}?fields=${field}`, token);
        for (const other of ['tickets', 'mappedRisks', 'testHistory'])
          assert.equal(other in one.body.data, other === field, `${field}: ${other}`);
      }
      const empty = await api(server.url, `/v1/tests/${ids.T4}?fields=tickets,mappedRisks,testHistory`, token);
      assert.deepEqual([empty.body.data.tickets, empty.body.data.mappedRisks, empty.body.data.testHistory], [[], [], []]);
    });

    test("get-one 404: unknown ID, another organization's test", async () => {
      for (const id of ['test_nope', otherTestId, 'not-a-test']) {
        const res = await api(server.url, `/v1/tests/${id}`, token);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body.error, { code: 'not_found', message: res.body.error.message, details: [] });
      }
      assert.equal((await api(server.url, `/v1/tests/${otherTestId}`, otherToken)).status, 200);
    });

    test('get-one 400: unknown resourceStatus, fields or parameter', async () => {
      for (const [query, field] of [
        ['resourceStatus=open', 'resourceStatus'],
        ['fields=ticketsCount', 'fields'],
        ['fields=resources', 'fields'],
        ['status=passing', 'status'],
      ]) {
        const res = await api(server.url, `/v1/tests/${ids.T1}?${query}`, token);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.details[0].field, field, query);
      }
    });

    test('security: no token 401, plan without tests 403 plan_restricted, another organization sees none of these', async () => {
      assert.equal((await api(server.url, '/v1/tests')).status, 401);
      assert.equal((await api(server.url, `/v1/tests/${ids.T1}`)).status, 401);
      const limited = await createOrgWithCredential(server.system, { name: 'No tests plan', plan: 'framework,vulnerability' });
      const limitedToken = await getToken(server.url, limited);
      for (const path of ['/v1/tests', `/v1/tests/${ids.T1}`]) {
        const res = await api(server.url, path, limitedToken);
        assert.equal(res.status, 403, path);
        assert.equal(res.body.error.code, 'plan_restricted');
      }
      const res = await api(server.url, '/v1/tests', otherToken);
      assert.deepEqual(
        res.body.data.map((t: any) => t.testName),
        ['Other org test'],
      );
    });

    test('a change to the data is served at once (cached results are keyed by the data version)', async () => {
      const scratch = await createOrgWithCredential(server.system, { name: 'Scratch' });
      const scratchToken = await getToken(server.url, scratch);
      const g = findingFixtures(server.database.db, scratch.organizationId);
      const first = await g.testRecord({ name: 'One', result: 'passing', resources: [{ name: 'r1', status: 'fix_required' }] });
      assert.deepEqual(
        (await api(server.url, '/v1/tests', scratchToken)).body.data.map((t: any) => t.testName),
        ['One'],
      );
      assert.equal((await api(server.url, `/v1/tests/${first}`, scratchToken)).body.data.resources.length, 1);
      await g.testRecord({ name: 'Two', result: 'ignored' });
      assert.deepEqual(
        (await api(server.url, '/v1/tests', scratchToken)).body.data.map((t: any) => t.testName),
        ['One', 'Two'],
      );
    });
  });
}
