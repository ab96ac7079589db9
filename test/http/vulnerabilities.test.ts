// GET /v1/vulnerabilities and GET /v1/vulnerabilities/{vulnerabilityId} over small, exactly known
// data sets, on every database engine: shapes, every filter, field and expansion, and errors.
// Walking every page: test/http/vulnerabilities-pagination.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../src/shared/vocabulary.ts';

const DAY = 86_400_000;
const T = Date.UTC(2025, 11, 1);

for (const dialect of dialects) {
  describe(`GET /v1/vulnerabilities (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    const ids: Record<string, string> = {};

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000' } });
      const client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      const base = fixtures(server.database.db, client.organizationId);
      const f = findingFixtures(server.database.db, client.organizationId);
      ids.ada = await base.person('Ada Admin', 'ada+sec@example.com');
      ids.bob = await base.person('Bob Builder', 'bob@example.com');
      ids.impact = await f.customField('Business impact', 'dropdown', ['Low', 'High'], 0);
      ids.notes = await f.customField('Remediation notes', 'text_box', [], 1);
      ids.risk = await f.risk('Data breach');
      await f.vulnerability({
        source: 'api',
        key: 'VUL-0001',
        title: 'Exposed admin panel',
        status: 'open',
        severity: 'critical',
        fixAvailable: 'yes',
        firstSeen: T + 5 * DAY,
        description: 'The admin panel is reachable from the internet.',
        remediation: 'Restrict access by IP.',
        stepsToReproduce: '1. Open /admin',
        lastScannedOn: T + 6 * DAY,
        cvssScore: 9.8,
        sla: 7,
        reportLink: 'https://scanner.example.com/findings/VUL-0001',
        addedBy: ids.ada,
        addedOn: T + 5 * DAY,
        lastModifiedBy: ids.bob,
        modifiedOn: T + 7 * DAY,
        assignees: [{ personId: ids.ada, isPrimary: true }, { personId: ids.bob }],
        resources: [
          { name: 'web-1', type: 'server', tags: ['prod', 'eu'], firstSeen: T + 5 * DAY, status: 'open' },
          { name: 'web-2', type: 'server', tags: [], firstSeen: T + 5 * DAY + 1000, status: 'closed' },
          { name: 'api-gw', type: 'application', tags: ['prod'], firstSeen: T + 5 * DAY + 2000, status: 'risk' },
          { name: 'db-1', type: 'server', tags: [], firstSeen: T + 5 * DAY + 3000, status: 'acknowledged' },
          { name: 'old-1', type: 'server', tags: [], firstSeen: T + 5 * DAY + 4000, status: 'ignored' },
        ],
        tickets: [{ key: 'SEC-12', source: 'jira', url: 'https://jira.example.com/browse/SEC-12' }],
        riskIds: [ids.risk],
        customValues: { [ids.impact]: 'High' },
      });
      await f.vulnerability({
        source: 'github',
        key: 'CVE-2024-0001',
        cveId: 'CVE-2024-0001',
        status: 'closed',
        severity: 'high',
        fixAvailable: 'no',
        firstSeen: T + 4 * DAY,
        cvssScore: 7.5,
      });
      await f.vulnerability({
        source: 'snyk',
        key: 'CVE-2023-1234',
        cveId: 'CVE-2023-1234',
        status: 'acknowledged',
        severity: 'medium',
        firstSeen: T + 4 * DAY,
        customValues: { [ids.notes]: 'Waiting on vendor patch' },
        resources: [{ name: 'pkg', status: 'acknowledged' }],
      });
      await f.vulnerability({
        source: 'sentinelOne',
        key: 'VUL-0002',
        status: 'ignored',
        severity: 'low',
        fixAvailable: 'yes',
        firstSeen: T + 1 * DAY,
      });
      await f.vulnerability({
        source: 'aws',
        key: 'VUL-0003',
        status: 'risk',
        severity: 'low',
        firstSeen: T + 2 * DAY,
        assignees: [{ personId: ids.bob, isPrimary: true }],
      });

      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      otherToken = await getToken(server.url, other);
      const g = findingFixtures(server.database.db, other.organizationId);
      await g.vulnerability({ source: 'api', key: 'VUL-0001', title: 'Other org finding', status: 'open', severity: 'low', firstSeen: T });
      await g.vulnerability({ source: 'github', key: 'CVE-2099-0001', status: 'open', severity: 'low', firstSeen: T });
    });
    after(() => server.close());

    const customFields = (impact: string, notes: string) => [
      { customFieldId: ids.impact, title: 'Business impact', fieldType: 'dropdown', options: ['Low', 'High'], fieldValue: impact },
      { customFieldId: ids.notes, title: 'Remediation notes', fieldType: 'text_box', options: [], fieldValue: notes },
    ];
    const listIds = async (query: string) => {
      const res = await api(server.url, `/v1/vulnerabilities${query}`, token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((v: any) => v.vulnerabilityId);
    };
    const ALL = ['api%23VUL-0001', 'github%23CVE-2024-0001', 'snyk%23CVE-2023-1234', 'aws%23VUL-0003', 'sentinelOne%23VUL-0002'];

    test('list: default fields, exact shapes, ordered by firstSeen descending then vulnerabilityId', async () => {
      const res = await api(server.url, '/v1/vulnerabilities', token);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.meta).sort(), ['nextCursor', 'requestId', 'totalCount']);
      assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
      assert.equal(res.body.meta.nextCursor, null);
      assert.equal(res.body.meta.totalCount, 5);
      assert.deepEqual(res.body.data, [
        {
          vulnerabilityId: 'api%23VUL-0001',
          title: 'Exposed admin panel',
          status: 'open',
          severity: 'critical',
          source: 'api',
          assignees: [
            { name: 'Ada Admin', email: 'ada+sec@example.com', isPrimary: true },
            { name: 'Bob Builder', email: 'bob@example.com', isPrimary: false },
          ],
          cveId: '',
          customFields: customFields('High', ''),
        },
        {
          vulnerabilityId: 'github%23CVE-2024-0001',
          title: 'Finding CVE-2024-0001',
          status: 'closed',
          severity: 'high',
          source: 'github',
          assignees: [],
          cveId: 'CVE-2024-0001',
          customFields: customFields('', ''),
        },
        {
          vulnerabilityId: 'snyk%23CVE-2023-1234',
          title: 'Finding CVE-2023-1234',
          status: 'acknowledged',
          severity: 'medium',
          source: 'snyk',
          assignees: [],
          cveId: 'CVE-2023-1234',
          customFields: customFields('', 'Waiting on vendor patch'),
        },
        {
          vulnerabilityId: 'aws%23VUL-0003',
          title: 'Finding VUL-0003',
          status: 'risk',
          severity: 'low',
          source: 'aws',
          assignees: [{ name: 'Bob Builder', email: 'bob@example.com', isPrimary: true }],
          cveId: '',
          customFields: customFields('', ''),
        },
        {
          vulnerabilityId: 'sentinelOne%23VUL-0002',
          title: 'Finding VUL-0002',
          status: 'ignored',
          severity: 'low',
          source: 'sentinelOne',
          assignees: [],
          cveId: '',
          customFields: customFields('', ''),
        },
      ]);
    });

    test('list: optional fields appear only when asked for; cvssScore is left out when unknown', async () => {
      const res = await api(server.url, '/v1/vulnerabilities?fields=cvssScore,resourcesCount,firstSeen', token);
      assert.equal(res.status, 200);
      const pick = (v: any) => ({
        id: v.vulnerabilityId,
        cvss: v.cvssScore,
        count: v.resourcesCount,
        firstSeen: v.firstSeen,
        hasCvss: 'cvssScore' in v,
      });
      assert.deepEqual(res.body.data.map(pick), [
        { id: 'api%23VUL-0001', cvss: 9.8, count: 5, firstSeen: T + 5 * DAY, hasCvss: true },
        { id: 'github%23CVE-2024-0001', cvss: 7.5, count: 0, firstSeen: T + 4 * DAY, hasCvss: true },
        { id: 'snyk%23CVE-2023-1234', cvss: undefined, count: 1, firstSeen: T + 4 * DAY, hasCvss: false },
        { id: 'aws%23VUL-0003', cvss: undefined, count: 0, firstSeen: T + 2 * DAY, hasCvss: false },
        { id: 'sentinelOne%23VUL-0002', cvss: undefined, count: 0, firstSeen: T + 1 * DAY, hasCvss: false },
      ]);
      for (const field of ['cvssScore', 'resourcesCount', 'firstSeen']) {
        const one = await api(server.url, `/v1/vulnerabilities?fields=${field}`, token);
        const keys = new Set(one.body.data.flatMap((v: any) => Object.keys(v)));
        for (const other of ['cvssScore', 'resourcesCount', 'firstSeen']) {
          if (other !== field) assert.equal(keys.has(other), false, `${other} absent when only ${field} is asked`);
        }
        assert.equal(keys.has(field), true);
      }
    });

    test('status filter: each value alone and several values (any of them)', async () => {
      const expected: Record<string, string[]> = {
        open: ['api%23VUL-0001'],
        closed: ['github%23CVE-2024-0001'],
        acknowledged: ['snyk%23CVE-2023-1234'],
        ignored: ['sentinelOne%23VUL-0002'],
        risk: ['aws%23VUL-0003'],
      };
      for (const status of VULNERABILITY_STATUSES) assert.deepEqual(await listIds(`?status=${status}`), expected[status], status);
      assert.deepEqual(await listIds('?status=risk,%20open'), ['api%23VUL-0001', 'aws%23VUL-0003']);
    });

    test('severity filter', async () => {
      const expected: Record<string, string[]> = {
        critical: ['api%23VUL-0001'],
        high: ['github%23CVE-2024-0001'],
        medium: ['snyk%23CVE-2023-1234'],
        low: ['aws%23VUL-0003', 'sentinelOne%23VUL-0002'],
      };
      for (const severity of SEVERITIES) assert.deepEqual(await listIds(`?severity=${severity}`), expected[severity], severity);
      assert.deepEqual(await listIds('?severity=low,critical'), ['api%23VUL-0001', 'aws%23VUL-0003', 'sentinelOne%23VUL-0002']);
    });

    test('source filter, every source value accepted', async () => {
      for (const source of VULNERABILITY_SOURCES) {
        const got = await listIds(`?source=${source}`);
        assert.deepEqual(
          got,
          ALL.filter((id) => id.startsWith(`${source}%23`)),
          source,
        );
      }
      assert.deepEqual(await listIds('?source=sentinelOne,github'), ['github%23CVE-2024-0001', 'sentinelOne%23VUL-0002']);
    });

    test('fixAvailable filter: findings with no recorded answer match neither value', async () => {
      assert.deepEqual(await listIds('?fixAvailable=yes'), ['api%23VUL-0001', 'sentinelOne%23VUL-0002']);
      assert.deepEqual(await listIds('?fixAvailable=no'), ['github%23CVE-2024-0001']);
      assert.deepEqual(await listIds('?fixAvailable=yes,no'), ['api%23VUL-0001', 'github%23CVE-2024-0001', 'sentinelOne%23VUL-0002']);
    });

    test('different filters combine with AND; totalCount counts the matches', async () => {
      const res = await api(server.url, '/v1/vulnerabilities?status=open,ignored,risk&severity=low&fixAvailable=yes', token);
      assert.deepEqual(
        res.body.data.map((v: any) => v.vulnerabilityId),
        ['sentinelOne%23VUL-0002'],
      );
      assert.equal(res.body.meta.totalCount, 1);
      const none = await api(server.url, '/v1/vulnerabilities?status=open&severity=low', token);
      assert.deepEqual(none.body.data, []);
      assert.deepEqual(none.body.meta, { requestId: none.body.meta.requestId, nextCursor: null, totalCount: 0 });
      assert.deepEqual(await listIds('?source=api,aws&severity=critical,low&status=open,risk'), ['api%23VUL-0001', 'aws%23VUL-0003']);
    });

    test('400 validation_failed names the parameter: unknown enum values, fields, count, unknown parameter', async () => {
      const cases: Array<[string, string]> = [
        ['status=opened', 'status'],
        ['status=open,', 'status'],
        ['severity=urgent', 'severity'],
        ['source=gitlab', 'source'],
        ['source=sentinelone', 'source'],
        ['fixAvailable=maybe', 'fixAvailable'],
        ['fields=description', 'fields'],
        ['fields=affectedResources', 'fields'],
        ['count=51', 'count'],
        ['count=10', 'count'],
        ['count=0', 'count'],
        ['count=abc', 'count'],
        ['count=50.5', 'count'],
        ['limit=50', 'limit'],
        ['nextCursor=', 'nextCursor'],
      ];
      for (const [query, field] of cases) {
        const res = await api(server.url, `/v1/vulnerabilities?${query}`, token);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed', query);
        assert.ok(
          res.body.error.details.some((d: any) => d.field === field),
          `${query}: ${JSON.stringify(res.body.error.details)}`,
        );
      }
      for (const count of [50, 100]) assert.equal((await api(server.url, `/v1/vulnerabilities?count=${count}`, token)).status, 200);
    });

    test('401 without a token; 403 plan_restricted when the plan leaves findings out', async () => {
      const anonymous = await api(server.url, '/v1/vulnerabilities');
      assert.equal(anonymous.status, 401);
      const limited = await createOrgWithCredential(server.system, { name: 'No findings plan', plan: 'framework,test' });
      const limitedToken = await getToken(server.url, limited);
      for (const path of ['/v1/vulnerabilities', '/v1/vulnerabilities/api%23VUL-0001']) {
        const res = await api(server.url, path, limitedToken);
        assert.equal(res.status, 403, path);
        assert.equal(res.body.error.code, 'plan_restricted');
      }
    });

    test('another organization sees only its own findings', async () => {
      const res = await api(server.url, '/v1/vulnerabilities', otherToken);
      assert.deepEqual(
        res.body.data.map((v: any) => [v.vulnerabilityId, v.title]),
        [
          ['api%23VUL-0001', 'Other org finding'],
          ['github%23CVE-2099-0001', 'Finding CVE-2099-0001'],
        ],
      );
      assert.equal(res.body.meta.totalCount, 2);
    });

    test('get-one: default fields with every value present; arrays always arrays', async () => {
      const res = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        data: {
          vulnerabilityId: 'api%23VUL-0001',
          title: 'Exposed admin panel',
          status: 'open',
          severity: 'critical',
          source: 'api',
          assignees: [
            { name: 'Ada Admin', email: 'ada+sec@example.com', isPrimary: true },
            { name: 'Bob Builder', email: 'bob@example.com', isPrimary: false },
          ],
          cveId: '',
          customFields: customFields('High', ''),
          description: 'The admin panel is reachable from the internet.',
          firstSeen: T + 5 * DAY,
          lastScannedOn: T + 6 * DAY,
          cvssScore: 9.8,
          sla: 7,
          reportLink: 'https://scanner.example.com/findings/VUL-0001',
          remediation: 'Restrict access by IP.',
          stepsToReproduce: '1. Open /admin',
          addedBy: { name: 'Ada Admin', email: 'ada+sec@example.com' },
          addedOn: T + 5 * DAY,
          lastModifiedBy: { name: 'Bob Builder', email: 'bob@example.com' },
          modifiedOn: T + 7 * DAY,
        },
        meta: { requestId: res.headers.get('x-request-id') },
      });
    });

    test('get-one: fields without a value are left out, modifiedOn is null, cveId is kept', async () => {
      const res = await api(server.url, '/v1/vulnerabilities/github%23CVE-2024-0001', token);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        vulnerabilityId: 'github%23CVE-2024-0001',
        title: 'Finding CVE-2024-0001',
        status: 'closed',
        severity: 'high',
        source: 'github',
        assignees: [],
        cveId: 'CVE-2024-0001',
        customFields: customFields('', ''),
        firstSeen: T + 4 * DAY,
        cvssScore: 7.5,
        addedOn: T + 4 * DAY,
        modifiedOn: null,
      });
      const sentinel = await api(server.url, '/v1/vulnerabilities/sentinelOne%23VUL-0002', token);
      assert.equal(sentinel.status, 200);
      assert.equal(sentinel.body.data.cveId, '');
    });

    test('get-one: affectedResources appears only when asked; resourceStatus defaults to open and risk', async () => {
      const plain = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001?resourceStatus=closed', token);
      assert.equal('affectedResources' in plain.body.data, false);
      const def = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001?fields=affectedResources', token);
      assert.deepEqual(def.body.data.affectedResources, [
        { name: 'api-gw', type: 'application', tags: ['prod'], firstSeen: T + 5 * DAY + 2000, status: 'risk' },
        { name: 'web-1', type: 'server', tags: ['prod', 'eu'], firstSeen: T + 5 * DAY, status: 'open' },
      ]);
      const byStatus = async (statuses: string) =>
        (
          await api(server.url, `/v1/vulnerabilities/api%23VUL-0001?fields=affectedResources&resourceStatus=${statuses}`, token)
        ).body.data.affectedResources.map((r: any) => r.name);
      assert.deepEqual(await byStatus('closed'), ['web-2']);
      assert.deepEqual(await byStatus('acknowledged,closed'), ['db-1', 'web-2']);
      assert.deepEqual(await byStatus('ignored'), ['old-1']);
      assert.deepEqual(await byStatus('open,closed,acknowledged,ignored,risk'), ['api-gw', 'db-1', 'old-1', 'web-1', 'web-2']);
      const none = await api(server.url, '/v1/vulnerabilities/github%23CVE-2024-0001?fields=affectedResources', token);
      assert.deepEqual(none.body.data.affectedResources, []);
    });

    test('get-one: tickets ({ id, url, source }) and mappedRisks expansions', async () => {
      const res = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001?fields=tickets,mappedRisks', token);
      assert.deepEqual(res.body.data.tickets, [{ id: 'SEC-12', url: 'https://jira.example.com/browse/SEC-12', source: 'jira' }]);
      assert.deepEqual(res.body.data.mappedRisks, [{ riskId: ids.risk, riskName: 'Data breach' }]);
      assert.equal('affectedResources' in res.body.data, false);
      const empty = await api(server.url, '/v1/vulnerabilities/aws%23VUL-0003?fields=tickets,mappedRisks,affectedResources', token);
      assert.deepEqual([empty.body.data.tickets, empty.body.data.mappedRisks, empty.body.data.affectedResources], [[], [], []]);
      const onlyTickets = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001?fields=tickets', token);
      assert.equal('mappedRisks' in onlyTickets.body.data, false);
    });

    test('get-one 404: unknown, double-encoded, malformed, another organization’s', async () => {
      for (const path of [
        'api%23VUL-9999',
        'api%2523VUL-0001',
        'api%252523VUL-0001',
        'apiVUL-0001',
        'api%23',
        '%23VUL-0001',
        'gitlab%23VUL-0001',
        'github%23CVE-2099-0001',
        'VUL-0001',
      ]) {
        const res = await api(server.url, `/v1/vulnerabilities/${path}`, token);
        assert.equal(res.status, 404, path);
        assert.deepEqual(res.body.error, { code: 'not_found', message: res.body.error.message, details: [] }, path);
        // an ID encoded again is told how to send it; any other unknown ID is simply not found
        if (path.includes('%25')) assert.match(res.body.error.message, /encoded twice.*exactly as returned/, path);
        else assert.equal(res.body.error.message, 'Vulnerability was not found.', path);
      }
      // the other organization reads its own finding under the same ID
      const own = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', otherToken);
      assert.equal(own.body.data.title, 'Other org finding');
    });

    test('get-one 400: unknown resourceStatus, fields or parameter', async () => {
      for (const [query, field] of [
        ['resourceStatus=fix_required', 'resourceStatus'],
        ['fields=cvssScore', 'fields'],
        ['fields=resources', 'fields'],
        ['count=50', 'count'],
      ]) {
        const res = await api(server.url, `/v1/vulnerabilities/api%23VUL-0001?${query}`, token);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.details[0].field, field, query);
      }
    });
  });
}
