// Retention of change events (issue 15), on every database engine: the periodic clean-up removes
// events older than the retention in bounded batches (a backlog larger than one run's share goes
// over the next runs), keeps newer ones, and a poller's stored cursor then continues from the
// oldest event kept.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { minimal, post } from '../harness/vulnerability-writes.ts';
import { feed, readAll, storedEvents } from '../harness/events.ts';
import { EVENT_DELETE_BATCH, EVENT_DELETE_BATCHES_PER_RUN, runCleanup } from '../../src/domain/maintenance/cleanup.ts';
import { insertEvents, takeEventNumbers } from '../../src/storage/db/repositories/events/events.ts';
import { openBlobStore } from '../../src/storage/blobs/open.ts';

const DAY = 86_400_000;
const T = Date.UTC(2026, 2, 1);

for (const dialect of dialects) {
  describe(`event retention (${dialect})`, () => {
    let server: TestServer;
    let clock = T;

    before(async () => {
      server = await startServer({ dialect, now: () => clock, env: { RATE_LIMIT_MAX: '100000' } });
    });
    after(() => server.close());

    test('events older than the retention go in bounded batches; newer ones stay; a stored cursor continues', async () => {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name: 'Retention' });
      const token = await getToken(server.url, client);
      const org = client.organizationId;
      // A backlog of old events (straight into the table: what wrote them does not matter here)…
      const backlog = EVENT_DELETE_BATCH * 2 + 500;
      const db = server.database.db.kysely;
      await db.transaction().execute(async (trx) => {
        const last = await takeEventNumbers(trx, org, backlog);
        const rows = Array.from({ length: backlog }, (_, i) => ({
          seq: last - backlog + 1 + i,
          id: `evt_00000000000000000000${String(i).padStart(6, '0')}`,
          type: 'vulnerability.updated',
          resourceType: 'vulnerability',
          resourceId: `api%23VUL-${i}`,
          occurredAt: T - 40 * DAY + i,
          data: '{"changes":{}}',
        }));
        for (let i = 0; i < rows.length; i += 500) await insertEvents(trx, org, rows.slice(i, i + 500));
      });
      const first = await feed(server, token, { count: 1 });
      const oldCursor = first.body.meta.nextCursor;
      // …then real writes 29 days old and fresh ones
      clock = T - 29 * DAY;
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 201);
      clock = T;
      assert.equal((await post(server, token, minimal('VUL-0002'))).status, 201);

      const blobs = openBlobStore(server.config);
      try {
        const result = await runCleanup({
          ctx: { db: server.database.db, blobs, now: () => T },
          input: { temporaryAgeMs: 3600_000, eventRetentionDays: 30 },
        });
        assert.ok(EVENT_DELETE_BATCH * EVENT_DELETE_BATCHES_PER_RUN >= backlog, 'one run is enough for this backlog');
        assert.equal(result.events, backlog);
        const kept = await storedEvents(server.database, org);
        assert.deepEqual(
          kept.map((e) => e.resourceId),
          ['api%23VUL-0001', 'api%23VUL-0002'],
        );
        const again = await runCleanup({ ctx: { db: server.database.db, blobs, now: () => T }, input: { temporaryAgeMs: 3600_000 } });
        assert.equal(again.events, 0, 'the default retention (30 days) keeps the 29-day-old event');
        // the cursor stored before the clean-up continues from the oldest event kept
        const continued = await readAll(server, token, { nextCursor: oldCursor });
        assert.deepEqual(
          continued.events.map((e) => e.resourceId),
          ['api%23VUL-0001', 'api%23VUL-0002'],
        );
        const later = await runCleanup({
          ctx: { db: server.database.db, blobs, now: () => T + 2 * DAY },
          input: { temporaryAgeMs: 3600_000 },
        });
        assert.equal(later.events, 1);
      } finally {
        await blobs.close();
      }
    });
  });
}
