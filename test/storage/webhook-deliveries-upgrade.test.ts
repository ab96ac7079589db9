// The upgrade that stops deliveries keeping a copy of their event (migration 0013), on every
// database engine: deliveries stored by the previous version lose their copy unless they are a
// `webhook.test` (whose event is never stored), and the upgraded server still sends a pending one,
// its body built from the stored event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { eventually, insertEndpointFixture, startReceiver, testEvent, type Receiver } from '../harness/webhooks.ts';
import { migrateToLatest } from '../../src/storage/db/migrate.ts';
import { insertEvents, takeEventNumbers } from '../../src/storage/db/repositories/events/events.ts';

for (const dialect of dialects) {
  describe(`webhook deliveries across the upgrade to 0013 (${dialect})`, () => {
    let database: TestDatabase;
    let server: TestServer | undefined;
    let receiver: Receiver;

    before(async () => {
      database = await createTestDatabase(dialect, '0012_vulnerability_list_columns');
      receiver = await startReceiver(204);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
      await database?.drop();
    });

    test('copies of stored events are dropped, a test event keeps its body, and a pending delivery is sent from its event', async () => {
      const system = { db: database.db, region: 'us' as const, now: Date.now };
      const client = await createOrgWithCredential(system, { name: 'Before 0013' });
      const org = client.organizationId;
      const { endpointId } = await insertEndpointFixture(system, {
        organizationId: org,
        url: `${receiver.url}/upgraded`,
      });
      const event = testEvent();
      const wire = JSON.parse(event.payload);
      const db = database.db.kysely;
      await db.transaction().execute(async (trx) => {
        const seq = await takeEventNumbers(trx, org, 1);
        await insertEvents(trx, org, [
          {
            seq,
            id: event.eventId,
            type: event.type,
            resourceType: wire.resourceType,
            resourceId: wire.resourceId,
            occurredAt: wire.occurredAt,
            data: JSON.stringify(wire.data),
          },
        ]);
      });
      const now = Date.now();
      const row = { organization_id: org, endpoint_id: endpointId, status: 'pending', next_attempt_at: now, created_at: now };
      const probe = '{"eventId":"evt_TEST","type":"webhook.test","data":{}}';
      await db
        .insertInto('webhook_deliveries')
        .values([
          { ...row, id: 'dlv_event', event_id: event.eventId, event_type: event.type, payload: event.payload },
          { ...row, id: 'dlv_probe', event_id: 'evt_TEST', event_type: 'webhook.test', payload: probe, status: 'failed' },
        ] as never)
        .execute();

      await migrateToLatest(database.db);
      const payloads = Object.fromEntries(
        (await db.selectFrom('webhook_deliveries').select(['id', 'payload']).execute()).map((r) => [r.id, r.payload]),
      );
      assert.deepEqual(payloads, { dlv_event: null, dlv_probe: probe });

      server = await startServer({
        database,
        env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' },
      });
      const [request] = await receiver.waitFor(1);
      assert.equal(request.headers['webhook-id'], event.eventId);
      assert.equal(request.body, event.payload, 'the body built from the stored event is the one the copy held');
      await eventually(
        async () =>
          (await db.selectFrom('webhook_deliveries').select('status').where('id', '=', 'dlv_event').executeTakeFirst())?.status ===
            'succeeded' || undefined,
        10_000,
        'the upgraded delivery succeeded',
      );
    });
  });
}
