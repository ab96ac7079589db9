// Webhook delivery by the app's worker, on every database engine, to real loopback receivers
// (issue 15; docs/decisions/events-and-webhooks.md, "Webhook delivery across nodes"): Standard Webhooks signatures
// that the `standardwebhooks` package verifies (two during a rotation's overlap), a tampered body
// refused; failures, time-outs and 500-then-200 retried on the documented schedule (the app's clock
// is the test's, moved forward instead of waiting); redirects not followed; only 1 KB of an answer
// kept; an endpoint failing past WEBHOOK_GIVE_UP_SEC disabled with an audit entry by the service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { dialects } from '../harness/engines.ts';
import { startServer, type TestServer } from '../harness/server.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import {
  addSecretFixture,
  enqueueEvents,
  eventually,
  insertEndpointFixture,
  startReceiver,
  testEvent,
  type Receiver,
} from '../harness/webhooks.ts';
import { RETRY_DELAYS_MS } from '../../src/domain/webhooks/retry-schedule.ts';
import { USER_AGENT } from '../../src/domain/webhooks/sign.ts';

const GIVE_UP_SEC = 3600;

for (const dialect of dialects) {
  describe(`webhook delivery (${dialect})`, () => {
    let server: TestServer;
    let offset = 0;
    let organizationId: string;
    const receivers: Receiver[] = [];

    before(async () => {
      server = await startServer({
        dialect,
        now: () => Date.now() + offset,
        env: {
          WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
          WEBHOOK_POLL_MS: '50',
          WEBHOOK_TIMEOUT_MS: '500',
          WEBHOOK_GIVE_UP_SEC: String(GIVE_UP_SEC),
        },
      });
      organizationId = (await createOrganization({ ctx: server.system, input: { name: 'Hooks' } })).id;
    });
    after(async () => {
      await server?.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    const receiver = async (fallback?: Parameters<typeof startReceiver>[0]) => {
      const r = await startReceiver(fallback);
      receivers.push(r);
      return r;
    };
    const db = () => server.database.db.kysely;
    const deliveryOf = (endpointId: string) =>
      db().selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').execute();
    const attemptsOf = (deliveryId: string) =>
      db().selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
    const settled = (endpointId: string, attempts: number) =>
      eventually(
        async () => {
          const [d] = await deliveryOf(endpointId);
          return d && (Number(d.attempts) >= attempts || d.status !== 'pending') && d.lease_owner === null ? d : undefined;
        },
        10_000,
        `attempt ${attempts}`,
      );

    test('a delivery is signed per Standard Webhooks: the package verifies it, a tampered body or another secret fails', async () => {
      const r = await receiver(200);
      const { endpointId, secret } = await insertEndpointFixture(server.system, { organizationId, url: `${r.url}/hook` });
      const event = testEvent();
      await enqueueEvents(server.database.db, organizationId, [event]);
      const [request] = await r.waitFor(1);

      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/hook');
      assert.equal(request.body, event.payload, 'the body is the event exactly');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['user-agent'], USER_AGENT);
      assert.equal(request.headers['webhook-id'], event.eventId);
      assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.match(request.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
      assert.deepEqual(new Webhook(secret).verify(request.body, request.headers), JSON.parse(event.payload));
      assert.throws(() => new Webhook(secret).verify(request.body.replace('VUL-1', 'VUL-2'), request.headers), WebhookVerificationError);
      const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      assert.throws(() => new Webhook(other).verify(request.body, request.headers), WebhookVerificationError);

      const delivery = await settled(endpointId, 1);
      assert.equal(delivery.status, 'succeeded');
      assert.equal(Number(delivery.last_status_code), 200);
      const attempts = await attemptsOf(delivery.id);
      assert.equal(attempts.length, 1);
      assert.equal(Number(attempts[0].status_code), 200);
      assert.equal(attempts[0].error, null);
    });

    test("during a rotation's overlap both secrets sign, and each verifies on its own; after it only the new one", async () => {
      const r = await receiver(204);
      const { endpointId, secret: old } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      const fresh = await addSecretFixture(server.system, organizationId, endpointId, Date.now() + 60_000);
      await enqueueEvents(server.database.db, organizationId, [testEvent()]);
      const [request] = await r.waitFor(1);
      assert.equal(request.headers['webhook-signature'].split(' ').length, 2);
      for (const secret of [old, fresh]) assert.ok(new Webhook(secret).verify(request.body, request.headers));

      await addSecretFixture(server.system, organizationId, endpointId, Date.now() - 1); // ends every overlap
      await server.database.db.kysely.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
      await enqueueEvents(server.database.db, organizationId, [testEvent()]);
      const [, second] = await r.waitFor(2);
      assert.equal(second.headers['webhook-signature'].split(' ').length, 1);
      assert.throws(() => new Webhook(old).verify(second.body, second.headers), WebhookVerificationError);
    });

    test('only subscribed endpoints of the organization receive an event; a disabled endpoint receives none', async () => {
      const vulns = await receiver(200);
      const evidence = await receiver(200);
      const off = await receiver(200);
      const a = await insertEndpointFixture(server.system, { organizationId, url: vulns.url, eventTypes: ['vulnerability.created'] });
      const b = await insertEndpointFixture(server.system, { organizationId, url: evidence.url, eventTypes: ['evidence.status_changed'] });
      const c = await insertEndpointFixture(server.system, { organizationId, url: off.url });
      await db().updateTable('webhook_endpoints').set({ status: 'disabled' }).where('id', '=', c.endpointId).execute();
      const other = (await createOrganization({ ctx: server.system, input: { name: 'Other' } })).id;
      await insertEndpointFixture(server.system, { organizationId: other, url: off.url });

      await enqueueEvents(server.database.db, organizationId, [testEvent('vulnerability.created'), testEvent('evidence.status_changed')]);
      const [got] = await vulns.waitFor(1);
      assert.equal(JSON.parse(got.body).type, 'vulnerability.created');
      assert.equal(JSON.parse((await evidence.waitFor(1))[0].body).type, 'evidence.status_changed');
      await settled(a.endpointId, 1);
      await settled(b.endpointId, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(off.requests.length, 0, 'neither the disabled endpoint nor another organization’s received anything');
      assert.equal((await deliveryOf(c.endpointId)).length, 0);
    });

    test('500 then 500 then 200: retried after ~5 s then ~30 s of the clock, not before; the success ends the failing run', async () => {
      const r = await receiver(200);
      r.queue.push({ status: 500, body: 'oops' }, 503);
      const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);

      const first = await settled(endpointId, 1);
      assert.equal(first.status, 'pending');
      assert.equal(first.last_error, 'the receiver answered 500');
      const delay1 = Number(first.next_attempt_at) - Number(first.last_attempt_at);
      assert.ok(delay1 >= RETRY_DELAYS_MS[0] * 0.8 && delay1 <= RETRY_DELAYS_MS[0] * 1.2 + 1000, `first delay ${delay1}`);
      const endpoint = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
      assert.equal(Number(endpoint.failing_since), Number(first.last_attempt_at));
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(r.requests.length, 1, 'not retried before its time');

      offset += Number(first.next_attempt_at) - (Date.now() + offset) + 1;
      const second = await settled(endpointId, 2);
      assert.equal(second.last_error, 'the receiver answered 503');
      const delay2 = Number(second.next_attempt_at) - Number(second.last_attempt_at);
      assert.ok(delay2 >= RETRY_DELAYS_MS[1] * 0.8 && delay2 <= RETRY_DELAYS_MS[1] * 1.2 + 1000, `second delay ${delay2}`);

      offset += Number(second.next_attempt_at) - (Date.now() + offset) + 1;
      const third = await settled(endpointId, 3);
      assert.equal(third.status, 'succeeded');
      assert.equal(r.requests.length, 3);
      assert.deepEqual(new Set(r.requests.map((q) => q.headers['webhook-id'])).size, 1, 'the same webhook-id on every attempt');
      const attempts = await attemptsOf(third.id);
      assert.deepEqual(
        attempts.map((a) => [Number(a.attempt), Number(a.status_code), a.response_body]),
        [
          [1, 500, 'oops'],
          [2, 503, ''],
          [3, 200, ''],
        ],
      );
      const after = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
      assert.equal(after.failing_since, null);
    });

    test('a receiver that does not answer within WEBHOOK_TIMEOUT_MS, or refuses the connection, is an attempt that failed and is retried', async () => {
      const r = await receiver('hang');
      const hung = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      const closed = await receiver(200);
      await closed.close();
      const refused = await insertEndpointFixture(server.system, { organizationId, url: closed.url });
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);

      const timedOut = await settled(hung.endpointId, 1);
      assert.equal(timedOut.status, 'pending');
      assert.equal(timedOut.last_error, 'no answer within 500 ms');
      assert.equal(timedOut.last_status_code, null);
      assert.ok(Number(timedOut.last_latency_ms) >= 500);
      const noConnection = await settled(refused.endpointId, 1);
      assert.equal(noConnection.status, 'pending');
      assert.equal(noConnection.last_error, 'connection refused');
      assert.ok(Number(noConnection.next_attempt_at) > Number(noConnection.last_attempt_at));
    });

    test('a redirect is not followed: the 3xx is a failed attempt and the target never hears of it', async () => {
      const target = await receiver(200);
      const r = await receiver({ status: 307, headers: { location: `${target.url}/elsewhere` } });
      const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);
      const delivery = await settled(endpointId, 1);
      assert.equal(delivery.status, 'pending');
      assert.equal(Number(delivery.last_status_code), 307);
      assert.match(delivery.last_error ?? '', /^redirects are not followed \(307 to http:\/\/127\.0\.0\.1:\d+\/elsewhere\)$/);
      assert.equal(target.requests.length, 0);
    });

    test('only the first 1 KB of an answer is kept, however long the answer', async () => {
      const r = await receiver({ status: 500, body: 'x'.repeat(1024 * 1024) });
      const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);
      const delivery = await settled(endpointId, 1);
      const [attempt] = await attemptsOf(delivery.id);
      assert.equal(attempt.response_body, 'x'.repeat(1024));
    });

    test('a signing secret that no longer decrypts fails the attempt with a reason, and nothing unsigned is sent', async () => {
      const r = await receiver(200);
      const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      await db()
        .updateTable('webhook_endpoint_secrets')
        .set({ secret_ciphertext: 'v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })
        .where('endpoint_id', '=', endpointId)
        .execute();
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);
      const delivery = await settled(endpointId, 1);
      assert.equal(delivery.status, 'pending', 'retried like any failure (and given up in the end)');
      assert.match(delivery.last_error ?? '', /^the signing secret could not be read \(.+\); rotate the endpoint's secret$/);
      assert.equal(r.requests.length, 0);
    });

    test('an endpoint failing for WEBHOOK_GIVE_UP_SEC is disabled, its pending deliveries failed, and the service audits it', async () => {
      const r = await receiver(500);
      const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: r.url });
      await enqueueEvents(server.database.db, organizationId, [testEvent()], Date.now() + offset);
      const first = await settled(endpointId, 1);
      const failingSince = Number(first.last_attempt_at);
      let attempts = 1;
      for (;;) {
        const [d] = await deliveryOf(endpointId);
        if (d.status !== 'pending') break;
        assert.ok(attempts < 12, 'gave up within a dozen attempts');
        // a second event arrives meanwhile: it is given up with the endpoint
        if (attempts === 3) await enqueueEvents(server.database.db, organizationId, [testEvent()], Number(d.next_attempt_at) + 10_000);
        offset += Number(d.next_attempt_at) - (Date.now() + offset) + 1;
        attempts++;
        await settled(endpointId, attempts);
      }
      const deliveries = await eventually(async () => {
        const all = await deliveryOf(endpointId);
        return all.every((d) => d.status === 'failed') ? all : undefined;
      });
      assert.equal(deliveries.length, 2);
      const lastAttempt = Math.max(...deliveries.map((d) => Number(d.last_attempt_at)));
      assert.ok(lastAttempt >= failingSince + GIVE_UP_SEC * 1000, 'not given up before the limit');
      assert.ok(lastAttempt < failingSince + GIVE_UP_SEC * 1000 + 5000, 'the last retry is moved to the limit');
      assert.ok(
        deliveries.some((d) => d.last_error === 'the endpoint was disabled after failing too long'),
        'the delivery that did not make the last attempt is failed with the endpoint',
      );
      const endpoint = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
      assert.equal(endpoint.status, 'disabled');
      assert.equal(endpoint.disabled_reason, 'Deliveries failed for 1 hour (last error: the receiver answered 500)');
      const audit = await db().selectFrom('audit_log').selectAll().where('target_id', '=', endpointId).execute();
      assert.equal(audit.length, 1);
      assert.equal(audit[0].action, 'webhook_endpoint.disable');
      assert.equal(audit[0].actor_type, 'system');
      assert.equal(audit[0].organization_id, organizationId);

      // an attempt already in flight when the endpoint was disabled may still arrive (it was sent
      // before the disable committed); what must not arrive is an event written after it
      const late = testEvent();
      await enqueueEvents(server.database.db, organizationId, [late], Date.now() + offset);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        r.requests.filter((request) => request.headers['webhook-id'] === late.eventId),
        [],
        'a disabled endpoint receives nothing more',
      );
      assert.equal((await deliveryOf(endpointId)).length, 2, 'no delivery is made for a disabled endpoint');
    });
  });

  describe(`the address check at delivery time (${dialect}; private addresses not allowed)`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let organizationId: string;

    before(async () => {
      server = await startServer({
        dialect,
        env: { WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' },
        // the name resolves to loopback now (it resolved elsewhere when it was registered: DNS rebinding)
        webhookDelivery: { lookupHost: async (host) => (host === 'hooks.example.com' ? ['127.0.0.1'] : ['93.184.215.14']) },
      });
      receiver = await startReceiver(200);
      organizationId = (await createOrganization({ ctx: server.system, input: { name: 'Guarded' } })).id;
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    for (const [what, host] of [
      ['a name that resolves to loopback', 'hooks.example.com'],
      ['a literal loopback address', '127.0.0.1'],
      ['an IPv4-mapped loopback address', '[::ffff:127.0.0.1]'],
    ] as const) {
      test(`${what} is refused before connecting, recorded as the attempt's error, and retried later`, async () => {
        const { endpointId } = await insertEndpointFixture(server.system, { organizationId, url: `http://${host}:${receiver.port}/` });
        await enqueueEvents(server.database.db, organizationId, [testEvent()]);
        const delivery = await eventually(async () => {
          const d = await server.database.db.kysely
            .selectFrom('webhook_deliveries')
            .selectAll()
            .where('endpoint_id', '=', endpointId)
            .executeTakeFirst();
          return d && Number(d.attempts) === 1 ? d : undefined;
        });
        assert.equal(delivery.status, 'pending');
        assert.match(delivery.last_error ?? '', /^address refused: .*loopback/);
        assert.equal(delivery.last_status_code, null);
        assert.equal(delivery.last_latency_ms, null, 'nothing was sent, so no latency');
        const [attempt] = await server.database.db.kysely
          .selectFrom('webhook_delivery_attempts')
          .selectAll()
          .where('delivery_id', '=', delivery.id)
          .execute();
        assert.equal(attempt.error, delivery.last_error);
        assert.equal(receiver.requests.length, 0, 'the receiver heard nothing');
      });
    }
  });
}
