// GET /v1/vulnerabilities pagination on every database engine: walking every page of a few hundred
// findings (with and without filters), the last page, cursors bound to their filters, tampered
// cursors, cursors across nodes (CURSOR_SECRET) and after new findings are added.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../src/shared/vocabulary.ts';
import { loadConfig } from '../../src/config.ts';

const T = Date.UTC(2025, 11, 1);

/** Walks every page of `query`, checking the page invariants on the way. */
async function walk(server: TestServer, token: string, query: string, count?: number) {
  const items: any[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  let totalCount: number | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const params = new URLSearchParams(query);
    if (count) params.set('count', String(count));
    if (cursor) params.set('nextCursor', cursor);
    const res = await api(server.url, `/v1/vulnerabilities?${params}`, token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (totalCount === undefined) totalCount = res.body.meta.totalCount;
    assert.equal(res.body.meta.totalCount, totalCount, 'totalCount is the same on every page');
    items.push(...res.body.data);
    sizes.push(res.body.data.length);
    cursor = res.body.meta.nextCursor;
    if (cursor === null) break;
    assert.equal(typeof cursor, 'string');
  }
  return { items, sizes, totalCount: totalCount! };
}
for (const dialect of dialects) {
  describe(`GET /v1/vulnerabilities pagination (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let f: ReturnType<typeof findingFixtures>;
    /** the stored findings in the documented order */
    let expected: Array<{ id: string; status: string; severity: string; source: string; firstSeen: number; fix: string | null }>;

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000' } });
      const client = await createOrgWithCredential(server.system, { name: 'Paging' });
      token = await getToken(server.url, client);
      f = findingFixtures(server.database.db, client.organizationId);
      const rows = [];
      // 330 findings; firstSeen repeats every 7, so many pages end inside a run of equal times
      for (let i = 0; i < 330; i++) {
        rows.push({
          source: VULNERABILITY_SOURCES[(i * 7) % VULNERABILITY_SOURCES.length],
          key: `VUL-${String(i + 1).padStart(4, '0')}`,
          status: VULNERABILITY_STATUSES[(i * 3) % VULNERABILITY_STATUSES.length],
          severity: SEVERITIES[(i * 5) % SEVERITIES.length],
          firstSeen: T + Math.floor(i / 7) * 1000,
          fixAvailable: (['yes', 'no', null] as const)[i % 3],
        });
      }
      await f.manyVulnerabilities(rows);
      expected = rows
        .map((r) => ({
          id: `${r.source}%23${r.key}`,
          status: r.status,
          severity: r.severity,
          source: r.source,
          firstSeen: r.firstSeen,
          fix: r.fixAvailable,
        }))
        .sort((a, b) => b.firstSeen - a.firstSeen || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const other = await createOrgWithCredential(server.system, { name: 'Other paging' });
      otherToken = await getToken(server.url, other);
    });
    after(() => server.close());

    for (const count of [undefined, 50, 100]) {
      test(`walking every page with count=${count ?? 'default (50)'} collects exactly totalCount findings in order`, async () => {
        const { items, sizes, totalCount } = await walk(server, token, '', count);
        const size = count ?? 50;
        assert.equal(totalCount, 330);
        assert.deepEqual(
          items.map((v) => v.vulnerabilityId),
          expected.map((e) => e.id),
        );
        assert.equal(new Set(items.map((v) => v.vulnerabilityId)).size, 330);
        assert.deepEqual(sizes, [...Array(Math.floor(330 / size)).fill(size), 330 % size]);
      });
    }

    test('walking a filtered list (status, severity, source, fixAvailable) keeps the filter on every page', async () => {
      const query = 'status=open,risk,closed&severity=critical,low,medium&fields=firstSeen';
      const { items, totalCount } = await walk(server, token, query, 50);
      const want = expected.filter(
        (e) => ['open', 'risk', 'closed'].includes(e.status) && ['critical', 'low', 'medium'].includes(e.severity),
      );
      assert.ok(want.length > 100);
      assert.equal(totalCount, want.length);
      assert.deepEqual(
        items.map((v) => v.vulnerabilityId),
        want.map((e) => e.id),
      );
      assert.deepEqual(
        items.map((v) => v.firstSeen),
        want.map((e) => e.firstSeen),
      );

      const bySource = await walk(server, token, 'source=aws,snyk,api', 50);
      const wantSource = expected.filter((e) => ['aws', 'snyk', 'api'].includes(e.source));
      assert.deepEqual(
        bySource.items.map((v) => v.vulnerabilityId),
        wantSource.map((e) => e.id),
      );
      assert.equal(bySource.totalCount, wantSource.length);

      const byFix = await walk(server, token, 'fixAvailable=no&severity=low,high', 50);
      const wantFix = expected.filter((e) => e.fix === 'no' && ['low', 'high'].includes(e.severity));
      assert.deepEqual(
        byFix.items.map((v) => v.vulnerabilityId),
        wantFix.map((e) => e.id),
      );
      assert.equal(byFix.totalCount, wantFix.length);

      // Several values in every filtered column: whichever ranges the page reads, some filter is
      // checked inside them with more than one value (on PostgreSQL, the page reads its keys first
      // and its rows after, as in the walks above).
      const mixed = await walk(server, token, 'status=open,closed,risk&severity=low,high,medium,critical&source=aws,snyk,api,github', 50);
      const wantMixed = expected.filter(
        (e) =>
          ['open', 'closed', 'risk'].includes(e.status) &&
          ['low', 'high', 'medium', 'critical'].includes(e.severity) &&
          ['aws', 'snyk', 'api', 'github'].includes(e.source),
      );
      assert.ok(wantMixed.length > 50, 'more than one page');
      assert.deepEqual(
        mixed.items.map((v) => v.vulnerabilityId),
        wantMixed.map((e) => e.id),
      );
      assert.equal(mixed.totalCount, wantMixed.length);

      // One value in each filtered column: on PostgreSQL, the ranges read the rows with the keys.
      const single = await walk(server, token, 'fixAvailable=yes&fields=firstSeen', 50);
      const wantSingle = expected.filter((e) => e.fix === 'yes');
      assert.ok(wantSingle.length > 50, 'more than one page');
      assert.deepEqual(
        single.items.map((v) => v.vulnerabilityId),
        wantSingle.map((e) => e.id),
      );
      assert.equal(single.totalCount, wantSingle.length);
    });

    test('the last page has nextCursor null, also when the total is a multiple of the page size', async () => {
      const client = await createOrgWithCredential(server.system, { name: 'Exactly one hundred' });
      const t = await getToken(server.url, client);
      const g = findingFixtures(server.database.db, client.organizationId);
      await g.manyVulnerabilities(
        Array.from({ length: 100 }, (_, i) => ({
          source: 'api',
          key: `VUL-${String(i + 1).padStart(4, '0')}`,
          status: 'open',
          severity: 'high',
          firstSeen: T + i,
        })),
      );
      const one = await api(server.url, '/v1/vulnerabilities?count=100', t);
      assert.equal(one.body.data.length, 100);
      assert.equal(one.body.meta.nextCursor, null);
      const two = await walk(server, t, '', 50);
      assert.deepEqual(two.sizes, [50, 50]);
      assert.equal(two.totalCount, 100);
      const empty = await api(server.url, '/v1/vulnerabilities', otherToken);
      assert.deepEqual(empty.body.data, []);
      assert.deepEqual([empty.body.meta.nextCursor, empty.body.meta.totalCount], [null, 0]);
    });

    test('a cursor is bound to its filters: reused with other filters it answers 400 naming nextCursor', async () => {
      const first = await api(server.url, '/v1/vulnerabilities?status=open', token);
      const cursor = first.body.meta.nextCursor as string;
      assert.equal(typeof cursor, 'string');
      const same = await api(server.url, `/v1/vulnerabilities?status=open&nextCursor=${encodeURIComponent(cursor)}`, token);
      assert.equal(same.status, 200);
      // page size and fields are not filters: changing them keeps the cursor valid
      const resized = await api(
        server.url,
        `/v1/vulnerabilities?status=open&count=100&fields=firstSeen&nextCursor=${encodeURIComponent(cursor)}`,
        token,
      );
      assert.equal(resized.status, 200);
      assert.deepEqual(
        resized.body.data.slice(0, same.body.data.length).map((v: any) => v.vulnerabilityId),
        same.body.data.map((v: any) => v.vulnerabilityId),
      );
      // the same filter values in another order or spacing are the same filters
      const spaced = await api(server.url, `/v1/vulnerabilities?status=%20open&nextCursor=${encodeURIComponent(cursor)}`, token);
      assert.equal(spaced.status, 200);
      for (const query of [
        '',
        'status=open,closed',
        'status=closed',
        'status=open&severity=low',
        'status=open&source=api',
        'status=open&fixAvailable=yes',
      ]) {
        const res = await api(server.url, `/v1/vulnerabilities?${query}${query ? '&' : ''}nextCursor=${encodeURIComponent(cursor)}`, token);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.deepEqual(
          res.body.error.details.map((d: any) => d.field),
          ['nextCursor'],
          query,
        );
      }
      // another organization cannot use it either
      const foreign = await api(server.url, `/v1/vulnerabilities?status=open&nextCursor=${encodeURIComponent(cursor)}`, otherToken);
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.error.details[0].field, 'nextCursor');
    });

    test('a tampered or garbage cursor answers 400 validation_failed naming nextCursor', async () => {
      const first = await api(server.url, '/v1/vulnerabilities', token);
      const cursor = first.body.meta.nextCursor as string;
      const [payload, mac] = cursor.split('.');
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const forgedPayload = Buffer.from(JSON.stringify([T + 10_000_000, 'api', 'VUL-0001'])).toString('base64url');
      for (const bad of [
        'garbage',
        'a.b',
        '.',
        `${payload}.`,
        `.${mac}`,
        `${flip(payload, 3)}.${mac}`,
        `${payload}.${flip(mac, 5)}`,
        `${payload}.${mac}x`,
        `${payload}.${mac}.${mac}`,
        `${forgedPayload}.${mac}`,
        cursor.slice(0, -1),
      ]) {
        const res = await api(server.url, `/v1/vulnerabilities?nextCursor=${encodeURIComponent(bad)}`, token);
        assert.equal(res.status, 400, bad);
        assert.deepEqual(
          res.body.error.details.map((d: any) => d.field),
          ['nextCursor'],
          bad,
        );
      }
    });

    test('a cursor issued by one node is accepted by another on the same database; CURSOR_SECRET must match', async () => {
      const first = await api(server.url, '/v1/vulnerabilities?severity=low', token);
      const cursor = encodeURIComponent(first.body.meta.nextCursor);
      // no CURSOR_SECRET: both nodes use the key generated once and kept in the database
      const sibling = await startServer({ dialect, database: server.database, env: { RATE_LIMIT_MAX: '100000' } });
      try {
        const a = await api(server.url, `/v1/vulnerabilities?severity=low&nextCursor=${cursor}`, token);
        const b = await api(sibling.url, `/v1/vulnerabilities?severity=low&nextCursor=${cursor}`, token);
        assert.equal(b.status, 200);
        assert.deepEqual(b.body.data, a.body.data);
        assert.equal(b.body.meta.nextCursor, a.body.meta.nextCursor);
      } finally {
        await sibling.close();
      }
      // nodes configured with one CURSOR_SECRET accept each other's cursors, and only those
      const secret = 'x'.repeat(40);
      const n1 = await startServer({ dialect, database: server.database, env: { RATE_LIMIT_MAX: '100000', CURSOR_SECRET: secret } });
      const n2 = await startServer({ dialect, database: server.database, env: { RATE_LIMIT_MAX: '100000', CURSOR_SECRET: secret } });
      try {
        const issued = await api(n1.url, '/v1/vulnerabilities?severity=low', token);
        const c = encodeURIComponent(issued.body.meta.nextCursor);
        assert.equal((await api(n2.url, `/v1/vulnerabilities?severity=low&nextCursor=${c}`, token)).status, 200);
        const elsewhere = await api(server.url, `/v1/vulnerabilities?severity=low&nextCursor=${c}`, token);
        assert.equal(elsewhere.status, 400);
        assert.equal(elsewhere.body.error.details[0].field, 'nextCursor');
        assert.equal((await api(n1.url, `/v1/vulnerabilities?severity=low&nextCursor=${cursor}`, token)).status, 400);
      } finally {
        await n1.close();
        await n2.close();
      }
      assert.throws(() => loadConfig({ CURSOR_SECRET: 'too-short' }), /CURSOR_SECRET must be at least 32 characters/);
    });

    test('a cursor keeps working after newer findings are added; totalCount follows the data at once', async () => {
      const first = await api(server.url, '/v1/vulnerabilities?severity=high', token);
      const before = first.body.meta.totalCount;
      await f.manyVulnerabilities([{ source: 'api', key: 'VUL-9000', status: 'open', severity: 'high', firstSeen: T + 10_000_000 }]);
      const next = await api(
        server.url,
        `/v1/vulnerabilities?severity=high&nextCursor=${encodeURIComponent(first.body.meta.nextCursor)}`,
        token,
      );
      assert.equal(next.status, 200);
      assert.equal(next.body.meta.totalCount, before + 1);
      const seen = new Set([...first.body.data, ...next.body.data].map((v: any) => v.vulnerabilityId));
      assert.equal(seen.size, first.body.data.length + next.body.data.length, 'no finding repeats across pages');
      assert.equal(seen.has('api%23VUL-9000'), false, 'the new finding sorts before the cursor, so later pages do not show it');
      const restart = await api(server.url, '/v1/vulnerabilities?severity=high', token);
      assert.equal(restart.body.data[0].vulnerabilityId, 'api%23VUL-9000');
    });
  });
}
