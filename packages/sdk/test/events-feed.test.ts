// The events feed's walk and follower against a scripted server whose feed the test appends to and
// whose answers can be made to misbehave: the cursor chain and filters on every page, hasMore
// asked at once and the interval otherwise, an abort that ends the loop with the exact cursor to
// resume from, fromNow, rate limits waited out (429 past the retries, X-RateLimit-Remaining: 0),
// and other errors thrown.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ComplianceClient, PaginationError, PermissionDeniedError, type ChangeEvent } from '../src/index.ts';
import { fastRetries, json, startScriptedServer, v1Error, type Answer, type ScriptedServer } from './support/scripted-server.ts';

const event = (n: number) => ({
  eventId: `evt_${String(n).padStart(26, '0')}`,
  type: 'vulnerability.created',
  occurredAt: 1_764_000_000_000 + n,
  resourceType: 'vulnerability',
  resourceId: `api%23VUL-${String(n).padStart(4, '0')}`,
  data: { vulnerability: {} },
});

/** A feed of `events` (appendable): the cursor is `c<position>`, nextCursor never null, hasMore as the service says it. */
function feed(events: unknown[], headers: () => Record<string, string> = () => ({})): Answer {
  return (req, res, raw) => {
    const query = new URL(req.path, 'http://x').searchParams;
    const count = Number(query.get('count') ?? 100);
    const cursor = query.get('nextCursor');
    const from = cursor === null ? 0 : Number(cursor.slice(1));
    const data = events.slice(from, from + count);
    const position = from + data.length;
    return json(200, { data, meta: { requestId: 'req_feed', nextCursor: `c${position}`, hasMore: position < events.length } }, headers())(
      req,
      res,
      raw,
    );
  };
}

const ids = (events: ChangeEvent[]) => events.map((e) => e.eventId);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => event(from + i).eventId);

describe('the events feed (scripted server)', () => {
  let server: ScriptedServer;
  const client = (options = {}) =>
    new ComplianceClient({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', ...fastRetries, ...options });
  const queries = () => server.requests.map((r) => Object.fromEntries(new URL(r.path, server.url).searchParams));

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('list walks every page with the filters, from the oldest or from a cursor, and leaves the cursor to continue from', async () => {
    const events = Array.from({ length: 250 }, (_, i) => event(i));
    server.fallback = feed(events);
    const walk = client().events.list({ types: ['vulnerability.created', 'evidence.status_changed'], resourceId: 'r1' });
    assert.equal(walk.cursor, undefined);
    assert.deepEqual(ids(await walk.toArray({ limit: 1000 })), range(0, 250));
    assert.equal(walk.cursor, 'c250');
    assert.deepEqual(queries(), [
      { types: 'vulnerability.created,evidence.status_changed', resourceId: 'r1' },
      { types: 'vulnerability.created,evidence.status_changed', resourceId: 'r1', nextCursor: 'c100' },
      { types: 'vulnerability.created,evidence.status_changed', resourceId: 'r1', nextCursor: 'c200' },
    ]);
    server.requests.length = 0;
    events.push(event(250), event(251));
    const later = client().events.list({ nextCursor: walk.cursor, count: 500 });
    assert.deepEqual(ids(await later.toArray({ limit: 10 })), range(250, 252));
    assert.deepEqual(queries(), [{ nextCursor: 'c250', count: '500' }]);
    assert.equal(later.cursor, 'c252');
  });

  test('an empty feed is one request, and its cursor is still one to keep', async () => {
    server.fallback = feed([]);
    const walk = client().events.list();
    assert.deepEqual(await walk.toArray({ limit: 10 }), []);
    assert.equal(server.requests.length, 1);
    assert.equal(walk.cursor, 'c0');
  });

  test('listPage is one page with its meta; pages() yields each', async () => {
    server.fallback = feed(Array.from({ length: 130 }, (_, i) => event(i)));
    const page = await client().events.listPage({ count: 100 });
    assert.deepEqual([page.data.length, page.meta.nextCursor, page.meta.hasMore, page.response.status], [100, 'c100', true, 200]);
    const metas = [];
    for await (const p of client().events.list({ count: 60 }).pages()) metas.push([p.data.length, p.meta.nextCursor, p.meta.hasMore]);
    assert.deepEqual(metas, [
      [60, 'c60', true],
      [60, 'c120', true],
      [10, 'c130', false],
    ]);
  });

  test('a service that says hasMore but repeats the cursor stops the walk', async () => {
    server.fallback = json(200, { data: [event(1)], meta: { requestId: 'r', nextCursor: 'same', hasMore: true } });
    await assert.rejects(client().events.list({ nextCursor: 'same' }).toArray({ limit: 100 }), PaginationError);
    assert.equal(server.requests.length, 1);
  });

  test('follow yields what is there, then new events as they come, and an abort ends the loop with the cursor after the last one', async () => {
    const events = Array.from({ length: 3 }, (_, i) => event(i));
    server.fallback = feed(events);
    const controller = new AbortController();
    const follower = client().events.follow({ intervalMs: 50, signal: controller.signal });
    const seen: ChangeEvent[] = [];
    for await (const e of follower) {
      seen.push(e);
      if (seen.length === 3) setTimeout(() => events.push(event(3), event(4)), 120);
      if (seen.length === 5) setTimeout(() => controller.abort(), 120);
    }
    assert.deepEqual(ids(seen), range(0, 5));
    assert.equal(follower.cursor, 'c5');
    const polls = queries().map((q) => q.nextCursor);
    assert.equal(polls[0], undefined);
    assert.ok(
      polls.slice(1).every((c) => c === 'c3' || c === 'c5'),
      `polls with the last cursor: ${polls}`,
    );
    assert.ok(polls.includes('c3'), `polled again with the cursor after the first events: ${polls}`);
    // Resuming from that cursor misses nothing and repeats nothing.
    events.push(event(5));
    const resumed = await client().events.list({ nextCursor: follower.cursor }).toArray({ limit: 10 });
    assert.deepEqual(ids(resumed), range(5, 6));
  });

  test('follow asks again at once while hasMore, and waits the interval only at the end', async () => {
    server.fallback = feed(Array.from({ length: 250 }, (_, i) => event(i)));
    const controller = new AbortController();
    const started = performance.now();
    const seen: ChangeEvent[] = [];
    for await (const e of client().events.follow({ intervalMs: 60_000, signal: controller.signal, count: 100 })) {
      seen.push(e);
      if (seen.length === 250) setTimeout(() => controller.abort(), 50);
    }
    assert.equal(seen.length, 250);
    assert.equal(server.requests.length, 3);
    assert.ok(performance.now() - started < 5_000, 'no interval between pages that said hasMore');
  });

  test('follow from a stored cursor, or fromNow (skipping the history in pages of 500)', async () => {
    const events = Array.from({ length: 1200 }, (_, i) => event(i));
    server.fallback = feed(events);
    const controller = new AbortController();
    const seen: ChangeEvent[] = [];
    for await (const e of client().events.follow({ after: 'c1198', signal: controller.signal, intervalMs: 20 })) {
      seen.push(e);
      if (seen.length === 2) controller.abort();
    }
    assert.deepEqual(ids(seen), range(1198, 1200));

    server.requests.length = 0;
    const controller2 = new AbortController();
    const fresh: ChangeEvent[] = [];
    const follower = client().events.follow({ fromNow: true, signal: controller2.signal, intervalMs: 20 });
    // The new event is committed once the follower has read to the end (three pages) and polled once.
    const committer = setInterval(() => {
      if (server.requests.length >= 4 && events.length === 1200) events.push(event(1200));
    }, 10);
    const cap = setTimeout(() => controller2.abort(), 10_000);
    for await (const e of follower) {
      fresh.push(e);
      controller2.abort();
    }
    clearInterval(committer);
    clearTimeout(cap);
    assert.deepEqual(ids(fresh), range(1200, 1201));
    assert.deepEqual(
      queries()
        .slice(0, 3)
        .map((q) => [q.count, q.nextCursor]),
      [
        ['500', undefined],
        ['500', 'c500'],
        ['500', 'c1000'],
      ],
    );
    assert.equal(follower.cursor, 'c1201');
    assert.throws(() => client().events.follow({ fromNow: true, after: 'c1' }), TypeError);
    assert.throws(() => client().events.follow({ intervalMs: -1 }), TypeError);
  });

  test('a 429 past the retries is waited out (Retry-After), not thrown', async () => {
    const events = [event(0)];
    const answers = feed(events);
    let calls = 0;
    server.fallback = (req, res, raw) =>
      ++calls <= 2 ? v1Error(429, 'rate_limit_exceeded', { 'retry-after': '1' })(req, res, raw) : answers(req, res, raw);
    const controller = new AbortController();
    const started = performance.now();
    const seen: ChangeEvent[] = [];
    for await (const e of client({ maxRetries: 0 }).events.follow({ signal: controller.signal, intervalMs: 10 })) {
      seen.push(e);
      controller.abort();
    }
    assert.deepEqual(ids(seen), range(0, 1));
    assert.equal(calls, 3);
    assert.ok(performance.now() - started >= 1_900, 'waited Retry-After twice');
  });

  test('an answer that uses the window up (X-RateLimit-Remaining: 0) delays the next poll to the reset', async () => {
    const events = [event(0)];
    let resetAt = 0;
    server.fallback = feed(events, () => ({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt) }));
    resetAt = Math.ceil(Date.now() / 1000) + 1;
    const controller = new AbortController();
    const seen: ChangeEvent[] = [];
    for await (const e of client().events.follow({ signal: controller.signal, intervalMs: 0 })) {
      seen.push(e);
      if (seen.length === 1) setTimeout(() => events.push(event(1)), 10);
      else controller.abort();
    }
    assert.deepEqual(ids(seen), range(0, 2));
    const [first, second] = server.requests;
    assert.ok(second.at - first.at >= 500, `the second poll waited for the window: ${second.at - first.at} ms`);
  });

  test('other errors end the follower with the error; an abort before it starts ends it quietly', async () => {
    server.fallback = v1Error(403, 'forbidden');
    await assert.rejects(
      (async () => {
        for await (const _ of client().events.follow({ intervalMs: 10 })) assert.fail('no events');
      })(),
      PermissionDeniedError,
    );
    const controller = new AbortController();
    controller.abort();
    for await (const _ of client().events.follow({ signal: controller.signal })) assert.fail('no events');
  });
});
