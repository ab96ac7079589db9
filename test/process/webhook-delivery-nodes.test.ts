// Webhook delivery across nodes (issue 15): two real server processes (src/main.ts) on one
// PostgreSQL database, each running its delivery worker, and a loopback receiver.
// - 1,000 events enqueued from outside the nodes (as writes on any node would) all arrive; the
//   duplicates that at-least-once allows are counted and reported (none are expected: a claim is
//   leased with FOR UPDATE SKIP LOCKED);
// - 1,000 real writes spread over both nodes: every event the outbox recorded arrives, with its
//   own eventId as webhook-id;
// - a node SIGKILLed between claiming a delivery and finishing it (the receiver holds the request
//   open): the other node sends it again once the dead node's heartbeat is stale (the claim
//   liveness window, a few seconds), well before the 30 s lease would end.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import type { BaseContext } from '../../src/domain/context.ts';
import { enqueueEvents, eventually, insertEndpointFixture, startReceiver, testEvent, type Receiver } from '../harness/webhooks.ts';
import { countDeliveriesByStatus } from '../../src/storage/db/repositories/events/webhook-deliveries.ts';
import { api, getToken, insertCredentialFixture } from '../harness/server.ts';
import { minimal, writeHeaders } from '../harness/vulnerability-writes.ts';

const EVENTS = 1000;

for (const dialect of dialects) {
  if (dialect !== 'postgres') continue;
  describe('webhook delivery by two nodes on one PostgreSQL', () => {
    let database: TestDatabase;
    let ctx: BaseContext;
    const nodes: ServerProcess[] = [];
    const receivers: Receiver[] = [];

    const startNode = async (env: Record<string, string> = {}) => {
      const node = await startServerProcess({
        database,
        store: createTestStore('memory'),
        env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', RATE_LIMIT_MAX: '100000', ...env },
      });
      nodes.push(node);
      return node;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      ctx = { db: database.db, region: 'us', now: Date.now };
      await startNode();
      await startNode();
    });
    after(async () => {
      await Promise.all(nodes.map((n) => n.kill()));
      await Promise.all(receivers.map((r) => r.close()));
      await database?.drop();
    });

    it(`delivers ${EVENTS} events: every one arrives, duplicates are counted`, async (t) => {
      const receiver = await startReceiver(200);
      receivers.push(receiver);
      const organizationId = (await createOrganization({ ctx, input: { name: 'Many' } })).id;
      const { endpointId } = await insertEndpointFixture(ctx, { organizationId, url: receiver.url });
      const events = Array.from({ length: EVENTS }, () => testEvent());
      const started = Date.now();
      for (let i = 0; i < EVENTS; i += 50) await enqueueEvents(database.db, organizationId, events.slice(i, i + 50));

      await receiver.waitFor(EVENTS, 120_000);
      const counts = await eventually(
        async () => {
          const c = await countDeliveriesByStatus(database.db.kysely, organizationId);
          return c.succeeded === EVENTS ? c : undefined;
        },
        60_000,
        'every delivery recorded as succeeded',
      );
      const elapsed = Date.now() - started;
      const perId = new Map<string, number>();
      for (const r of receiver.requests) perId.set(r.headers['webhook-id'], (perId.get(r.headers['webhook-id']) ?? 0) + 1);
      const duplicates = receiver.requests.length - perId.size;
      t.diagnostic(
        `${EVENTS} events to 1 endpoint by 2 nodes: ${receiver.requests.length} requests, ${duplicates} duplicates, ${elapsed} ms`,
      );
      assert.deepEqual(
        events.filter((e) => !perId.has(e.eventId)),
        [],
        'every event arrived',
      );
      assert.equal(perId.size, EVENTS);
      assert.deepEqual(counts, { succeeded: EVENTS });
      // at least once: a duplicate is allowed, but with leases none should happen on two healthy nodes
      assert.equal(duplicates, 0, `${duplicates} duplicates`);
      const attempts = await database.db.kysely
        .selectFrom('webhook_delivery_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(attempts.n), EVENTS, 'one attempt recorded per delivery');
      assert.ok(endpointId);
    });

    it(`${EVENTS} writes over HTTP on both nodes: every recorded event is delivered, duplicates counted`, async (t) => {
      const receiver = await startReceiver(200);
      receivers.push(receiver);
      const organizationId = (await createOrganization({ ctx, input: { name: 'Writes' } })).id;
      await insertEndpointFixture(ctx, { organizationId, url: receiver.url });
      const credential = await insertCredentialFixture({ ctx, input: { organizationId, accessLevel: 'read_write' } });
      const tokens = await Promise.all(nodes.map((n) => getToken(n.url, credential)));
      const started = Date.now();
      let next = 0;
      // eight writers, each alternating between the two nodes
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let i = next++; i < EVENTS; i = next++) {
            const node = (i + w) % nodes.length;
            const res = await api(nodes[node].url, '/v1/vulnerabilities', tokens[node], {
              method: 'POST',
              headers: writeHeaders(`many-${i}`),
              body: JSON.stringify(minimal(`VUL-${1000 + i}`)),
            });
            assert.equal(res.status, 201, JSON.stringify(res.body));
          }
        }),
      );
      const recorded = await database.db.kysely.selectFrom('events').select('id').where('organization_id', '=', organizationId).execute();
      assert.equal(recorded.length, EVENTS, 'one event per write');
      await receiver.waitFor(EVENTS, 120_000);
      const perId = new Map<string, number>();
      for (const r of receiver.requests) perId.set(r.headers['webhook-id'], (perId.get(r.headers['webhook-id']) ?? 0) + 1);
      const duplicates = receiver.requests.length - perId.size;
      t.diagnostic(
        `${EVENTS} writes on 2 nodes: ${receiver.requests.length} requests, ${duplicates} duplicates, ${Date.now() - started} ms`,
      );
      assert.deepEqual(
        recorded.filter((e) => !perId.has(e.id)).map((e) => e.id),
        [],
        'every recorded event arrived',
      );
      assert.equal(perId.size, EVENTS, 'nothing but the recorded events arrived');
      assert.equal(duplicates, 0, `${duplicates} duplicates`);
    });

    it('a node killed between claim and delivery: the other node delivers once the dead node is stale, before the lease ends', async (t) => {
      const receiver = await startReceiver(200);
      receivers.push(receiver);
      receiver.queue.push('hang'); // the first request is held open, the node sending it is killed
      const organizationId = (await createOrganization({ ctx, input: { name: 'Killed' } })).id;
      const { endpointId } = await insertEndpointFixture(ctx, { organizationId, url: receiver.url });
      const event = testEvent();
      await enqueueEvents(database.db, organizationId, [event]);

      await receiver.waitFor(1);
      const leased = await database.db.kysely
        .selectFrom('webhook_deliveries')
        .innerJoin('server_instances', 'server_instances.id', 'webhook_deliveries.lease_owner')
        .select(['server_instances.pid', 'webhook_deliveries.lease_until'])
        .where('webhook_deliveries.endpoint_id', '=', endpointId)
        .executeTakeFirstOrThrow();
      const holder = nodes.find((n) => n.child.pid === Number(leased.pid));
      assert.ok(holder, 'the lease is held by one of the two nodes');
      const killedAt = Date.now();
      await holder.kill();
      assert.ok(Number(leased.lease_until) - killedAt > 20_000, 'the lease has long to run');

      const [, again] = await receiver.waitFor(2, 20_000);
      const takenOverMs = Date.now() - killedAt;
      t.diagnostic(`the other node delivered ${takenOverMs} ms after the kill (lease ${Number(leased.lease_until) - killedAt} ms away)`);
      assert.equal(again.headers['webhook-id'], event.eventId);
      assert.ok(Date.now() < Number(leased.lease_until), 'before the lease ended');
      const delivery = await eventually(async () => {
        const d = await database.db.kysely
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirstOrThrow();
        return d.status === 'succeeded' ? d : undefined;
      });
      assert.equal(Number(delivery.attempts), 1, 'the killed attempt recorded nothing; the survivor recorded its own');
    });

    it('a delivery enqueued outside the nodes is sent at once: the commit is announced to every node, no poll is waited for', async (t) => {
      await Promise.all(nodes.map((n) => n.stop()));
      // polls a minute apart: only the announcement can explain a delivery within seconds
      await startNode({ WEBHOOK_POLL_MS: '60000' });
      await startNode({ WEBHOOK_POLL_MS: '60000' });
      const receiver = await startReceiver(200);
      receivers.push(receiver);
      const organizationId = (await createOrganization({ ctx, input: { name: 'Announced' } })).id;
      await insertEndpointFixture(ctx, { organizationId, url: receiver.url });
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await enqueueEvents(database.db, organizationId, [testEvent()]);
        await receiver.waitFor(i + 1, 5000);
        latencies.push(Date.now() - started);
      }
      t.diagnostic(`commit to receiver with 60 s polls: ${latencies.join(', ')} ms`);
      assert.ok(Math.max(...latencies) < 5000);
    });

    it('SIGTERM: the node stops claiming, and gives back the lease of an attempt still running at the end of the grace, so another node sends it', async (t) => {
      await Promise.all(nodes.map((n) => n.stop()));
      const leaving = await startNode({ SHUTDOWN_GRACE_MS: '2500' });
      const receiver = await startReceiver(200);
      receivers.push(receiver);
      receiver.queue.push('hang');
      const organizationId = (await createOrganization({ ctx, input: { name: 'Leaving' } })).id;
      const { endpointId } = await insertEndpointFixture(ctx, { organizationId, url: receiver.url });
      const event = testEvent();
      await enqueueEvents(database.db, organizationId, [event]);
      await receiver.waitFor(1);
      await startNode();

      const signalled = Date.now();
      const exit = await leaving.stop('SIGTERM', 10_000);
      assert.equal(exit.code, 0, leaving.stderr());
      assert.match(leaving.stdout(), /"released":1[,}].*gave back the leases of unfinished attempts/);
      const [, again] = await receiver.waitFor(2, 10_000);
      t.diagnostic(`delivered by the remaining node ${Date.now() - signalled} ms after SIGTERM (grace 2500 ms)`);
      assert.equal(again.headers['webhook-id'], event.eventId);
      await eventually(async () => {
        const d = await database.db.kysely
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirstOrThrow();
        return d.status === 'succeeded' ? d : undefined;
      });
    });
  });
}
