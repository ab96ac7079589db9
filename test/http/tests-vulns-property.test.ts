// Property tests of the tests and vulnerabilities lists, on every engine: for random data and random
// filters, each filtered list (for findings: all pages concatenated) equals the unfiltered list
// filtered by the documented rule — values of one filter combine as any, filters as all; emails and
// application names match case-insensitively; fixAvailable `yes`/`no` never matches a finding
// with no recorded answer; findings are ordered by firstSeen descending, then vulnerabilityId.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { SEVERITIES, TEST_RESULTS, TEST_STATUSES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../src/shared/vocabulary.ts';

const T = Date.UTC(2025, 0, 1);
const FIX = ['yes', 'no'] as const;
const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 20);

const finding = fc.record({
  source: fc.constantFrom(...VULNERABILITY_SOURCES),
  status: fc.constantFrom(...VULNERABILITY_STATUSES),
  severity: fc.constantFrom(...SEVERITIES),
  fix: fc.constantFrom('yes', 'no', null),
  // few distinct times, so pages often end inside a run of equal firstSeen
  bucket: fc.integer({ min: 0, max: 12 }),
});

const subset = <T extends string>(values: readonly T[]) => fc.option(fc.subarray([...values], { minLength: 1 }), { nil: undefined });

const findingFilter = fc.record({
  status: subset(VULNERABILITY_STATUSES),
  severity: subset(SEVERITIES),
  source: subset(VULNERABILITY_SOURCES),
  fixAvailable: subset(FIX),
  count: fc.constantFrom(50, 100),
});

/** Random letter case, to check case-insensitive matching. */
const recase = (s: string, mask: number) => [...s].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');

for (const dialect of dialects) {
  describe(`tests and vulnerabilities lists, property-based (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    async function walk(token: string, params: URLSearchParams) {
      const items: any[] = [];
      let cursor: string | null = null;
      let total = -1;
      do {
        const p = new URLSearchParams(params);
        if (cursor) p.set('nextCursor', cursor);
        const res = await api(server.url, `/v1/vulnerabilities?${p}`, token);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        if (total === -1) total = res.body.meta.totalCount;
        assert.equal(res.body.meta.totalCount, total);
        items.push(...res.body.data);
        cursor = res.body.meta.nextCursor;
      } while (cursor !== null);
      return { ids: items.map((v) => v.vulnerabilityId as string), items, total };
    }

    test('vulnerabilities: every filtered walk equals the unfiltered walk filtered by the rule', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(finding, { maxLength: 240, size: 'max' }),
          fc.array(findingFilter, { minLength: 3, maxLength: 3 }),
          async (rows, filters) => {
            const client = await createOrgWithCredential(server.system, { name: 'Property findings' });
            const token = await getToken(server.url, client);
            const stored = rows.map((r, i) => ({ ...r, key: `VUL-${String(i + 1).padStart(4, '0')}`, firstSeen: T + r.bucket * 60_000 }));
            if (stored.length > 0) {
              await findingFixtures(server.database.db, client.organizationId).manyVulnerabilities(
                stored.map((r) => ({
                  source: r.source,
                  key: r.key,
                  status: r.status,
                  severity: r.severity,
                  firstSeen: r.firstSeen,
                  fixAvailable: r.fix,
                })),
              );
            }
            const byId = new Map(stored.map((r) => [`${r.source}%23${r.key}`, r]));
            const all = await walk(token, new URLSearchParams({ fields: 'firstSeen' }));
            // the unfiltered walk: every finding once, in the documented order
            const order = [...byId.entries()]
              .sort(([a, x], [b, y]) => y.firstSeen - x.firstSeen || (a < b ? -1 : a > b ? 1 : 0))
              .map(([id]) => id);
            assert.deepEqual(all.ids, order);
            assert.equal(all.total, stored.length);

            for (const filter of filters) {
              const params = new URLSearchParams({ count: String(filter.count) });
              if (filter.status) params.set('status', filter.status.join(','));
              if (filter.severity) params.set('severity', filter.severity.join(','));
              if (filter.source) params.set('source', filter.source.join(','));
              if (filter.fixAvailable) params.set('fixAvailable', filter.fixAvailable.join(', '));
              const got = await walk(token, params);
              const want = all.items
                .filter((v) => !filter.status || filter.status.includes(v.status))
                .filter((v) => !filter.severity || filter.severity.includes(v.severity))
                .filter((v) => !filter.source || filter.source.includes(v.source))
                .filter((v) => {
                  const fix = byId.get(v.vulnerabilityId)!.fix;
                  return !filter.fixAvailable || (fix !== null && (filter.fixAvailable as string[]).includes(fix));
                })
                .map((v) => v.vulnerabilityId);
              assert.deepEqual(got.ids, want, params.toString());
              assert.equal(got.total, want.length);
            }
          },
        ),
        { numRuns: NUM_RUNS, endOnFailure: true },
      );
    });

    test('tests: every filtered list equals the unfiltered list filtered by the rule', async () => {
      const testRecord = fc.record({
        result: fc.constantFrom(...TEST_RESULTS),
        integrationFailing: fc.boolean(),
        apps: fc.subarray([0, 1, 2]),
        people: fc.subarray([0, 1, 2]),
        frameworks: fc.subarray([0, 1, 2]),
        name: fc.constantFrom('Alpha', 'Beta', 'Gamma'),
      });
      const testFilter = fc.record({
        status: subset(TEST_STATUSES),
        frameworks: fc.option(fc.subarray([0, 1, 2, 3], { minLength: 1 }), { nil: undefined }),
        people: fc.option(fc.subarray([0, 1, 2, 3], { minLength: 1 }), { nil: undefined }),
        apps: fc.option(fc.subarray([0, 1, 2, 3], { minLength: 1 }), { nil: undefined }),
        mask: fc.integer({ min: 0, max: 2 ** 30 - 1 }),
      });
      const APPS = ['AWS', 'GitHub', 'Okta', 'Jira'];
      const EMAILS = ['ada+grc@example.com', 'bob@example.com', 'carol@example.com', 'nobody@example.com'];
      await fc.assert(
        fc.asyncProperty(
          fc.array(testRecord, { maxLength: 30, size: 'max' }),
          fc.array(testFilter, { minLength: 4, maxLength: 4 }),
          async (tests, filters) => {
            const client = await createOrgWithCredential(server.system, { name: 'Property tests' });
            const token = await getToken(server.url, client);
            const base = fixtures(server.database.db, client.organizationId);
            const f = findingFixtures(server.database.db, client.organizationId);
            const appIds = [await f.application('AWS'), await f.application('GitHub'), await f.application('Okta')];
            const personIds = [
              await base.person('Ada', EMAILS[0]),
              await base.person('Bob', EMAILS[1]),
              await base.person('Carol', EMAILS[2]),
            ];
            const frameworkIds: string[] = [];
            const requirementIds: string[] = [];
            for (const name of ['F-A', 'F-B', 'F-C']) {
              const id = await base.framework(name);
              frameworkIds.push(id);
              requirementIds.push(await base.requirement(id, `${name}-1`));
            }
            frameworkIds.push('00000000-0000-0000-0000-000000000000');
            for (const t of tests) {
              const id = await f.testRecord({
                name: t.name,
                result: t.result,
                integrationFailing: t.integrationFailing,
                applicationIds: t.apps.map((a) => appIds[a]),
                assignees: t.people.map((p, i) => ({ personId: personIds[p], isPrimary: i === 0 })),
              });
              if (t.frameworks.length > 0) await base.map('test', id, { requirementIds: t.frameworks.map((x) => requirementIds[x]) });
            }
            const all = await api(server.url, '/v1/tests?fields=mappedFrameworkIds', token);
            assert.equal(all.status, 200);
            assert.equal(all.body.data.length, tests.length);
            for (const filter of filters) {
              const params = new URLSearchParams();
              if (filter.status) params.set('status', filter.status.join(','));
              if (filter.frameworks) params.set('frameworkIds', filter.frameworks.map((x) => frameworkIds[x]).join(','));
              if (filter.people) params.set('assigneeEmails', filter.people.map((x) => recase(EMAILS[x], filter.mask)).join(','));
              if (filter.apps) params.set('applications', filter.apps.map((x) => recase(APPS[x], filter.mask >> 3)).join(', '));
              params.set('fields', 'mappedFrameworkIds');
              const got = await api(server.url, `/v1/tests?${params}`, token);
              assert.equal(got.status, 200, JSON.stringify(got.body));
              const want = all.body.data.filter(
                (t: any) =>
                  (!filter.status || (filter.status as string[]).includes(t.status)) &&
                  (!filter.frameworks || filter.frameworks.some((x) => t.mappedFrameworkIds.includes(frameworkIds[x]))) &&
                  (!filter.people || filter.people.some((x) => t.assignees.some((a: any) => a.email === EMAILS[x]))) &&
                  (!filter.apps || filter.apps.some((x) => t.applications.some((a: any) => a.name === APPS[x]))),
              );
              assert.deepEqual(got.body.data, want, params.toString());
            }
          },
        ),
        { numRuns: NUM_RUNS, endOnFailure: true },
      );
    });
  });
}
