// The events feed across nodes and restarts (issue 15): two real server processes (`src/main.ts`)
// on one PostgreSQL schema take writes concurrently while a poller, alternating between the nodes
// and keeping only the last nextCursor, reads the feed; one node is restarted in the middle. The
// poller must see every committed event exactly once, in number order: the trap it guards against
// is reading by an ID or number that commits out of order (a later number visible before an
// earlier one), which would make the stored cursor skip the earlier event for good.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { addCredential, api, createOrgWithCredential, getToken } from '../harness/server.ts';
import { storedEvents } from '../harness/events.ts';
import { minimal, newKey } from '../harness/vulnerability-writes.ts';
import type { BaseContext } from '../../src/domain/context.ts';

const enabled = Boolean(process.env.TEST_DATABASE_URL);
const env = { RATE_LIMIT_MAX: '1000000' };

describe('a poller storing nextCursor across two nodes on one PostgreSQL schema', {
  skip: !enabled && 'needs TEST_DATABASE_URL (PostgreSQL)',
}, () => {
  let database: TestDatabase;
  let testStore: TestStore;
  let nodes: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase('postgres');
    testStore = createTestStore('memory');
    nodes = await Promise.all([
      startServerProcess({ database, store: testStore, env }),
      startServerProcess({ database, store: testStore, env }),
    ]);
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    await testStore?.store.close();
    await database?.drop();
  });

  it('misses nothing and sees nothing twice, with concurrent writes on both nodes and a node restarted', async () => {
    const system: BaseContext = { db: database.db, region: 'us', now: Date.now };
    const writer = await createOrgWithCredential(system, { accessLevel: 'read_write', name: 'Poller Org' });
    const reader = await addCredential(system, writer.organizationId, 'read_only');
    const writeToken = await getToken(nodes[0].url, writer);
    const readToken = await getToken(nodes[1].url, reader);

    let acknowledged = 0;
    let failed = 0;
    const write = async (node: ServerProcess, i: number) => {
      const key = `VUL-${String(i).padStart(4, '0')}`;
      const created = await api(node.url, '/v1/vulnerabilities', writeToken, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
        body: JSON.stringify(minimal(key)),
      }).catch(() => undefined);
      if (created?.status === 201) acknowledged++;
      else failed++;
      const updated = await api(node.url, `/v1/vulnerabilities/api%23${key}`, writeToken, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
        body: JSON.stringify({ reportLink: `https://example.com/${i}` }),
      }).catch(() => undefined);
      if (updated?.status === 200) acknowledged++;
      else failed++;
    };
    /** `count` writers, 6 at a time, spread over the nodes (both take writes at once). */
    const writeBatch = async (from: number, count: number) => {
      for (let i = from; i < from + count; i += 6) {
        await Promise.all(Array.from({ length: Math.min(6, from + count - i) }, (_, j) => write(nodes[(i + j) % nodes.length], i + j)));
      }
    };

    const seen: string[] = [];
    let cursor: string | undefined;
    let polls = 0;
    let writing = true;
    /** One poll on the next node; true when the feed had more at once. */
    const poll = async (): Promise<boolean> => {
      const node = nodes[polls++ % nodes.length];
      const qs = new URLSearchParams({ count: '7' });
      if (cursor) qs.set('nextCursor', cursor);
      const res = await api(node.url, `/v1/events?${qs}`, readToken).catch(() => undefined);
      if (res?.status !== 200) return false; // a node restarting: try the other one next
      for (const e of res.body.data) seen.push(e.eventId);
      assert.equal(typeof res.body.meta.nextCursor, 'string');
      cursor = res.body.meta.nextCursor;
      return res.body.meta.hasMore;
    };
    const poller = (async () => {
      while (writing) if (!(await poll())) await new Promise((r) => setTimeout(r, 5));
    })();

    await writeBatch(0, 60);
    // A node restarts between write phases: the poller keeps its cursor and the other node.
    await nodes[0].stop();
    nodes[0] = await startServerProcess({ database, store: testStore, env });
    await writeBatch(60, 60);
    writing = false;
    await poller;
    // drain
    while (await poll());
    await poll();

    assert.equal(failed, 0, 'every write was acknowledged');
    const stored = await storedEvents(database, writer.organizationId);
    assert.equal(stored.length, acknowledged, 'one event per acknowledged write');
    assert.equal(new Set(seen).size, seen.length, `no event seen twice (${seen.length} seen)`);
    assert.deepEqual(
      seen,
      stored.map((e) => e.id),
      'every event seen, in number order',
    );
    assert.deepEqual(
      stored.map((e) => e.seq),
      Array.from({ length: stored.length }, (_, i) => i + 1),
      'numbers without gaps',
    );
    assert.ok(polls > 10, `the poller polled while writes ran (${polls} polls)`);
  });
});
