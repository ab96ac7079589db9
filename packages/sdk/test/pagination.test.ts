// Walking the vulnerability list against a scripted server, where the pages can be made to
// misbehave: the cursor chain, the filters sent on every page, the totalCount check, the
// toArray cap, a failing page retried mid-walk, and cursors that would loop.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ComplianceClient, PaginationError, TotalCountMismatchError } from '../src/index.ts';
import { fastRetries, json, startScriptedServer, v1Error, type Answer, type ScriptedServer } from './support/scripted-server.ts';

const item = (i: number) => ({
  vulnerabilityId: `api%23VUL-${String(i).padStart(4, '0')}`,
  title: `Finding ${i}`,
  status: 'open',
  severity: 'low',
  source: 'api',
  assignees: [],
  cveId: '',
  customFields: [],
});

/** Serves `total` findings in pages of the requested count; the cursor is the next offset. */
function pagedFindings(total: number, options: { reportTotal?: number } = {}): Answer {
  return (req, res) => {
    const query = new URL(req.path, 'http://x').searchParams;
    const count = Number(query.get('count') ?? 50);
    const offset = Number(query.get('nextCursor') ?? 0);
    const data = Array.from({ length: Math.max(0, Math.min(count, total - offset)) }, (_, i) => item(offset + i));
    const next = offset + count < total ? String(offset + count) : null;
    return json(200, { data, meta: { requestId: 'req_page', nextCursor: next, totalCount: options.reportTotal ?? total } })(
      req,
      res,
      undefined as never,
    );
  };
}

describe('vulnerabilities.list pagination (scripted server)', () => {
  let server: ScriptedServer;
  const client = () => new ComplianceClient({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', ...fastRetries });
  const queries = () => server.requests.map((r) => Object.fromEntries(new URL(r.path, server.url).searchParams));

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('walks every page, sending the filters and the previous cursor each time', async () => {
    server.fallback = pagedFindings(250);
    const seen: string[] = [];
    for await (const v of client().vulnerabilities.list({ severity: ['low', 'medium'], fields: ['firstSeen'] }))
      seen.push(v.vulnerabilityId);
    assert.equal(seen.length, 250);
    assert.equal(new Set(seen).size, 250);
    assert.deepEqual(queries(), [
      { severity: 'low,medium', fields: 'firstSeen', count: '100' },
      { severity: 'low,medium', fields: 'firstSeen', count: '100', nextCursor: '100' },
      { severity: 'low,medium', fields: 'firstSeen', count: '100', nextCursor: '200' },
    ]);
  });

  test('a count other than the default is kept on every page', async () => {
    server.fallback = pagedFindings(120);
    const items = await client().vulnerabilities.list({ count: 50 }).toArray({ limit: 1000 });
    assert.equal(items.length, 120);
    assert.deepEqual(
      queries().map((q) => q.count),
      ['50', '50', '50'],
    );
  });

  test('a walk that collects fewer items than totalCount throws after the last item', async () => {
    server.fallback = pagedFindings(150, { reportTotal: 151 });
    let yielded = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of client().vulnerabilities.list()) yielded++;
      })(),
      (err: unknown) => err instanceof TotalCountMismatchError && err.expected === 151 && err.received === 150,
    );
    assert.equal(yielded, 150);
    server.fallback = pagedFindings(10, { reportTotal: 9 });
    await assert.rejects(client().vulnerabilities.list().toArray({ limit: 100 }), TotalCountMismatchError);
  });

  test('toArray stops at its limit without reading further pages, and requires one', async () => {
    server.fallback = pagedFindings(1000);
    const first = await client().vulnerabilities.list().toArray({ limit: 150 });
    assert.equal(first.length, 150);
    assert.equal(server.requests.length, 2);
    assert.deepEqual(await client().vulnerabilities.list().toArray({ limit: 0 }), []);
    const list = client().vulnerabilities.list();
    await assert.rejects(list.toArray(undefined as never), TypeError);
    await assert.rejects(list.toArray({} as never), TypeError);
    await assert.rejects(list.toArray({ limit: -1 }), TypeError);
    await assert.rejects(list.toArray({ limit: 1.5 }), TypeError);
  });

  test('breaking out of the loop stops requesting pages', async () => {
    server.fallback = pagedFindings(1000);
    let n = 0;
    for await (const _ of client().vulnerabilities.list()) if (++n === 5) break;
    assert.equal(server.requests.length, 1);
  });

  test('a page that fails is retried and the walk goes on', async () => {
    const pages = pagedFindings(300);
    let calls = 0;
    server.fallback = (req, res, raw) => (++calls === 2 ? v1Error(503, 'upstream_unavailable')(req, res, raw) : pages(req, res, raw));
    const items = await client().vulnerabilities.list().toArray({ limit: 1000 });
    assert.equal(items.length, 300);
    assert.equal(server.requests.length, 4);
    assert.equal(queries()[1].nextCursor, '100');
    assert.equal(queries()[2].nextCursor, '100');
  });

  test('pages() yields each page with its meta and response', async () => {
    server.fallback = pagedFindings(120);
    const metas = [];
    for await (const page of client().vulnerabilities.list({ count: 100 }).pages())
      metas.push([page.data.length, page.meta.nextCursor, page.meta.totalCount, page.response.status]);
    assert.deepEqual(metas, [
      [100, '100', 120, 200],
      [20, null, 120, 200],
    ]);
  });

  test('an empty list is one request and no items', async () => {
    server.fallback = pagedFindings(0);
    assert.deepEqual(await client().vulnerabilities.list().toArray({ limit: 10 }), []);
    assert.equal(server.requests.length, 1);
  });

  test('a repeated cursor or an empty page before the end stops the walk', async () => {
    server.fallback = json(200, { data: [item(1)], meta: { requestId: 'r', nextCursor: 'same', totalCount: 5 } });
    await assert.rejects(client().vulnerabilities.list().toArray({ limit: 10_000 }), PaginationError);
    assert.equal(server.requests.length, 2);
    server.reset();
    server.fallback = json(200, { data: [], meta: { requestId: 'r', nextCursor: 'more', totalCount: 5 } });
    await assert.rejects(client().vulnerabilities.list().toArray({ limit: 10 }), PaginationError);
  });

  test('listPage fetches one page with a caller-held cursor', async () => {
    server.fallback = pagedFindings(130);
    const page1 = await client().vulnerabilities.listPage({ count: 100 });
    assert.equal(page1.data.length, 100);
    const page2 = await client().vulnerabilities.listPage({ count: 100, nextCursor: page1.meta.nextCursor! });
    assert.equal(page2.data.length, 30);
    assert.equal(page2.meta.nextCursor, null);
  });
});
