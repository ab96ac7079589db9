// Walking thousands of findings through the SDK against the real service on every engine: every
// finding once, in the service's order, with and without filters, at both page sizes; the
// toArray cap; and the totalCount check catching a finding added ahead of the walk.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { findingFixtures } from '../../../test/harness/fixtures-findings.ts';
import { ComplianceClient, TotalCountMismatchError, type FetchLike } from '../src/index.ts';
import { dialects } from './support/real-server.ts';

const TOTAL = 2345;
const STATUSES = ['open', 'closed', 'acknowledged', 'ignored', 'risk'] as const;
const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
const SOURCES = ['aws', 'github', 'snyk', 'qualys', 'tenable'] as const;
const T = Date.UTC(2025, 0, 1);

interface Row {
  source: string;
  key: string;
  status: (typeof STATUSES)[number];
  severity: (typeof SEVERITIES)[number];
  firstSeen: number;
  fixAvailable: 'yes' | 'no' | null;
}

// Several findings share each firstSeen, so the order's tie-break (the ID) is exercised too.
const rows: Row[] = Array.from({ length: TOTAL }, (_, i) => ({
  source: SOURCES[i % SOURCES.length],
  key: `VUL-${String(i).padStart(4, '0')}`,
  status: STATUSES[(i * 7) % STATUSES.length],
  severity: SEVERITIES[(i * 3) % SEVERITIES.length],
  firstSeen: T + Math.floor(i / 3) * 60_000,
  fixAvailable: i % 3 === 0 ? 'yes' : i % 3 === 1 ? 'no' : null,
}));

/** The service's order: firstSeen descending, then source and key ascending. */
function expectedIds(filter: (r: Row) => boolean): string[] {
  return rows
    .filter(filter)
    .sort(
      (a, b) =>
        b.firstSeen - a.firstSeen || (a.source < b.source ? -1 : a.source > b.source ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
    .map((r) => `${r.source}%23${r.key}`);
}

for (const dialect of dialects) {
  describe(`SDK pagination over ${TOTAL} findings (${dialect})`, () => {
    let server: TestServer;
    let sdk: ComplianceClient;
    let pageRequests = 0;

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000' } });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      await findingFixtures(server.database.db, client.organizationId).manyVulnerabilities(rows);
      const counting: FetchLike = (input, init) => {
        if (input.includes('/v1/vulnerabilities?')) pageRequests++;
        return fetch(input, init);
      };
      sdk = new ComplianceClient({ baseUrl: server.url, clientId: client.clientId, clientSecret: client.clientSecret, fetch: counting });
    });
    after(() => server.close());

    test('for await walks every finding once, in order, 100 per page', async () => {
      pageRequests = 0;
      const ids: string[] = [];
      for await (const v of sdk.vulnerabilities.list()) ids.push(v.vulnerabilityId);
      assert.equal(ids.length, TOTAL);
      assert.deepEqual(
        ids,
        expectedIds(() => true),
      );
      assert.equal(pageRequests, Math.ceil(TOTAL / 100));
    });

    test('filters and the smaller page size give exactly the matching findings', async () => {
      pageRequests = 0;
      const query = { status: ['open', 'risk'], severity: ['critical', 'high'], count: 50, fields: ['firstSeen'] } as const;
      const items = await sdk.vulnerabilities.list(query).toArray({ limit: TOTAL });
      const expected = expectedIds((r) => ['open', 'risk'].includes(r.status) && ['critical', 'high'].includes(r.severity));
      assert.ok(expected.length > 100, `${expected.length} findings match`);
      assert.deepEqual(
        items.map((v) => v.vulnerabilityId),
        expected,
      );
      assert.ok(items.every((v, i) => i === 0 || v.firstSeen! <= items[i - 1].firstSeen!));
      assert.equal(pageRequests, Math.ceil(expected.length / 50));

      const fixable = await sdk.vulnerabilities.list({ fixAvailable: ['yes'], source: ['aws', 'snyk'] }).toArray({ limit: TOTAL });
      assert.deepEqual(
        fixable.map((v) => v.vulnerabilityId),
        expectedIds((r) => r.fixAvailable === 'yes' && ['aws', 'snyk'].includes(r.source)),
      );
    });

    test('toArray returns the first `limit` findings and reads no further', async () => {
      pageRequests = 0;
      const first = await sdk.vulnerabilities.list().toArray({ limit: 1000 });
      assert.deepEqual(
        first.map((v) => v.vulnerabilityId),
        expectedIds(() => true).slice(0, 1000),
      );
      assert.equal(pageRequests, 10);
    });

    test('a finding created ahead of a walk in progress makes the count check fail', async () => {
      let created = false;
      let seen = 0;
      await assert.rejects(
        (async () => {
          for await (const _ of sdk.vulnerabilities.list()) {
            seen++;
            if (!created) {
              created = true;
              // Newest first: a finding seen now sorts before the cursor, so the walk cannot meet it.
              await sdk.vulnerabilities.create({
                vulnerabilityId: 'VUL-9999',
                title: 'Appeared mid-walk',
                severity: 'low',
                status: 'open',
              });
            }
          }
        })(),
        (err: unknown) => err instanceof TotalCountMismatchError && err.expected === TOTAL + 1 && err.received === TOTAL,
      );
      assert.equal(seen, TOTAL);
    });
  });
}
