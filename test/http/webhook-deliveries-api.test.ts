// The console's admin API about webhook deliveries (issue 15's contract), on every engine, over
// HTTP with a signed-in administrator: a test event is delivered signed and listed; deliveries page
// newest first with a cursor; attempts show what the receiver answered; a redelivery is a new
// delivery with the same webhook-id; another organization's endpoint or delivery is 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, startServer, type TestServer } from '../harness/server.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import { eventually, insertEndpointFixture, startReceiver, type Receiver } from '../harness/webhooks.ts';

const PASSWORD = 'correct horse battery staple';
const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

interface Signed {
  cookie: string;
  csrf: string;
}

for (const dialect of dialects) {
  describe(`console API: webhook deliveries (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let mine: Signed;
    let theirs: Signed;
    let organizationId: string;
    let endpointId: string;
    let secret: string;

    async function orgWithAdmin(name: string, email: string): Promise<{ id: string; session: Signed }> {
      const org = await createOrganization({ ctx: server.system, input: { name } });
      await createAdminFor({ ctx: server.system, input: { organizationId: org.id, email, password: PASSWORD }, actor: cli });
      const res = await api(server.url, '/console/api/session', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { id: org.id, session: { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken } };
    }

    const call = (s: Signed, path: string, method: 'GET' | 'POST' = 'GET') =>
      api(server.url, path, undefined, { method, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });

    before(async () => {
      server = await startServer({ dialect, env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' } });
      receiver = await startReceiver(200);
      const a = await orgWithAdmin('Mine', 'admin@mine.example');
      const b = await orgWithAdmin('Theirs', 'admin@theirs.example');
      mine = a.session;
      theirs = b.session;
      organizationId = a.id;
      ({ endpointId, secret } = await insertEndpointFixture(server.system, { organizationId, url: `${receiver.url}/in` }));
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    test('send test: 202 with the pending delivery; the receiver gets a signed webhook.test event that is not in the events table', async () => {
      const res = await call(mine, `/console/api/webhook-endpoints/${endpointId}/test`, 'POST');
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const delivery = res.body.data;
      assert.equal(delivery.endpointId, endpointId);
      assert.equal(delivery.eventType, 'webhook.test');
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, 0);
      assert.match(delivery.eventId, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);

      const [request] = await receiver.waitFor(1);
      const body = new Webhook(secret).verify(request.body, request.headers) as Record<string, unknown>;
      assert.deepEqual(body, {
        eventId: delivery.eventId,
        type: 'webhook.test',
        occurredAt: delivery.createdAt,
        resourceType: 'webhook_endpoint',
        resourceId: endpointId,
        data: { endpointId },
      });
      assert.equal(request.headers['webhook-id'], delivery.eventId);
      const stored = await server.database.db.kysely.selectFrom('events').select('id').where('id', '=', delivery.eventId).execute();
      assert.equal(stored.length, 0);
    });

    test('deliveries list newest first, page by page with the cursor; attempts say what the receiver answered', async () => {
      receiver.queue.push({ status: 200, body: 'thanks' });
      const second = (await call(mine, `/console/api/webhook-endpoints/${endpointId}/test`, 'POST')).body.data;
      await receiver.waitFor(2);
      await eventually(async () => {
        const all = (await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries`)).body.data;
        return all.every((d: any) => d.status === 'succeeded') ? all : undefined;
      });

      const page1 = await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries?count=1`);
      assert.equal(page1.status, 200, JSON.stringify(page1.body));
      assert.equal(page1.body.data.length, 1);
      assert.equal(page1.body.data[0].deliveryId, second.deliveryId, 'newest first');
      assert.equal(page1.body.data[0].status, 'succeeded');
      assert.equal(page1.body.data[0].attempts, 1);
      assert.equal(page1.body.data[0].lastStatusCode, 200);
      assert.equal(page1.body.data[0].nextAttemptAt, null);
      assert.equal(typeof page1.body.data[0].lastLatencyMs, 'number');
      assert.equal(typeof page1.body.meta.nextCursor, 'string');
      const page2 = await call(
        mine,
        `/console/api/webhook-endpoints/${endpointId}/deliveries?count=1&cursor=${encodeURIComponent(page1.body.meta.nextCursor)}`,
      );
      assert.equal(page2.body.data.length, 1);
      assert.notEqual(page2.body.data[0].deliveryId, second.deliveryId);
      assert.equal(page2.body.meta.nextCursor, null, 'the last page says so');

      const attempts = await call(mine, `/console/api/webhook-deliveries/${second.deliveryId}/attempts`);
      assert.equal(attempts.status, 200, JSON.stringify(attempts.body));
      assert.equal(attempts.body.data.length, 1);
      assert.deepEqual(
        { ...attempts.body.data[0], at: 0, latencyMs: 0 },
        { attempt: 1, at: 0, statusCode: 200, latencyMs: 0, error: null, responseBody: 'thanks' },
      );
    });

    test('redeliver: 202, a new delivery with the same event ID and body, received with the same webhook-id', async () => {
      const [original] = (await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries?count=1`)).body.data;
      const before = receiver.requests.length;
      const res = await call(mine, `/console/api/webhook-deliveries/${original.deliveryId}/redeliver`, 'POST');
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.notEqual(res.body.data.deliveryId, original.deliveryId);
      assert.equal(res.body.data.eventId, original.eventId);
      const requests = await receiver.waitFor(before + 1);
      const last = requests[requests.length - 1];
      assert.equal(last.headers['webhook-id'], original.eventId);
      assert.equal(last.body, requests.find((r) => r.headers['webhook-id'] === original.eventId)!.body);
    });

    test("another organization's endpoint and delivery are 404 on every route, and nothing is sent", async () => {
      const [delivery] = (await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries?count=1`)).body.data;
      const before = receiver.requests.length;
      for (const [path, method] of [
        [`/console/api/webhook-endpoints/${endpointId}/deliveries`, 'GET'],
        [`/console/api/webhook-endpoints/${endpointId}/test`, 'POST'],
        [`/console/api/webhook-deliveries/${delivery.deliveryId}/attempts`, 'GET'],
        [`/console/api/webhook-deliveries/${delivery.deliveryId}/redeliver`, 'POST'],
        ['/console/api/webhook-deliveries/dlv_00000000-0000-7000-8000-000000000000/attempts', 'GET'],
      ] as const) {
        const res = await call(theirs, path, method);
        assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, 'not_found');
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.requests.length, before);
    });

    test('a cursor not issued here, a count out of range, and a disabled endpoint are 400s naming the field', async () => {
      const badCursor = await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries?cursor=bm9wZQ`);
      assert.equal(badCursor.status, 400);
      assert.equal(badCursor.body.error.details[0].field, 'cursor');
      const badCount = await call(mine, `/console/api/webhook-endpoints/${endpointId}/deliveries?count=0`);
      assert.equal(badCount.status, 400);
      assert.match(JSON.stringify(badCount.body.error.details), /count/);

      const off = await insertEndpointFixture(server.system, { organizationId, url: receiver.url });
      await server.database.db.kysely
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled' })
        .where('id', '=', off.endpointId)
        .execute();
      const res = await call(mine, `/console/api/webhook-endpoints/${off.endpointId}/test`, 'POST');
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.details[0].field, 'endpointId');
      assert.match(res.body.error.details[0].message, /disabled/);
    });
  });
}
