// Issue 28, items 3, 4 and 5, on every engine (and each rate-limit store), over HTTP with a real
// delivery worker and loopback receivers:
//   3. one tenant's silent receivers and floods cannot starve another's deliveries: at most
//      WEBHOOK_ORG_CONCURRENCY in flight per organization, and test sends are limited;
//   4. nothing of an event outlives its retention: deliveries keep no copy, the clean-up removes
//      deliveries and attempts with their events, and a redelivery cannot send an event gone;
//   5. a flood of rotations never makes a signature header the SDK refuses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, stores } from '../harness/engines.ts';
import { createAdminFor, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { consoleCall, consoleSignIn, CONSOLE_PASSWORD, type Signed } from '../harness/console-session.ts';
import { minimal, post } from '../harness/vulnerability-writes.ts';
import { enqueueEvents, eventually, insertEndpointFixture, startReceiver, testEvent, type Receiver } from '../harness/webhooks.ts';
import { runCleanup } from '../../src/domain/maintenance/cleanup.ts';
import { openBlobStore } from '../../src/storage/blobs/open.ts';
import { webhooks } from '../../packages/sdk/src/index.ts';

const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };
const DAY = 86_400_000;
const TIMEOUT_MS = 4000;

for (const dialect of dialects) {
  for (const store of stores) {
    describe(`webhooks under a hostile tenant (${dialect}, ${store})`, () => {
      let server: TestServer;
      let silent: Receiver;
      let fine: Receiver;
      let clock: number | undefined;

      before(async () => {
        server = await startServer({
          dialect,
          store,
          now: () => clock ?? Date.now(),
          env: {
            RATE_LIMIT_MAX: '100000',
            WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
            WEBHOOK_POLL_MS: '50',
            WEBHOOK_CONCURRENCY: '8',
            WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
            WEBHOOK_MANUAL_SENDS_PER_MIN: '5',
          },
        });
        silent = await startReceiver('hang');
        fine = await startReceiver(204);
      });
      after(async () => {
        await server?.close();
        await silent?.close();
        await fine?.close();
      });

      async function orgWithAdmin(name: string, email: string): Promise<{ org: string; session: Signed }> {
        const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
        await createAdminFor({
          ctx: server.system,
          input: { organizationId: client.organizationId, email, password: CONSOLE_PASSWORD },
          actor: cli,
        });
        return { org: client.organizationId, session: await consoleSignIn(server.url, email) };
      }

      const inFlight = async (org: string) =>
        Number(
          (
            await server.database.db.kysely
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('organization_id', '=', org)
              .where('status', '=', 'pending')
              .where('lease_until', '>', Date.now())
              .executeTakeFirstOrThrow()
          ).n,
        );

      test('silent receivers of one organization hold at most its share; another organization is delivered at once', async () => {
        const abuser = await createOrgWithCredential(server.system, { name: 'Silent receivers' });
        for (let i = 0; i < 10; i++)
          await insertEndpointFixture(server.system, { organizationId: abuser.organizationId, url: `${silent.url}/s${i}` });
        // 10 endpoints × 3 events: 30 deliveries to receivers that never answer, all due now
        await enqueueEvents(server.database.db, abuser.organizationId, [testEvent(), testEvent(), testEvent()]);
        await eventually(async () => (silent.requests.length >= 4 ? true : undefined), 5000, 'the silent receivers are being tried');

        const victim = await createOrgWithCredential(server.system, { name: 'Normal tenant' });
        await insertEndpointFixture(server.system, { organizationId: victim.organizationId, url: `${fine.url}/victim` });
        const seen = fine.requests.length;
        const started = Date.now();
        await enqueueEvents(server.database.db, victim.organizationId, [testEvent()]);
        await fine.waitFor(seen + 1, TIMEOUT_MS * 3);
        const waited = Date.now() - started;
        assert.ok(
          waited < (TIMEOUT_MS * 3) / 4,
          `the other tenant's delivery waited ${waited} ms behind silent receivers (time-out ${TIMEOUT_MS} ms)`,
        );
        const held = await inFlight(abuser.organizationId);
        assert.ok(held <= 4, `the abusing organization holds ${held} deliveries in flight (WEBHOOK_ORG_CONCURRENCY 4)`);
      });

      test('test events and redeliveries are limited per organization: 429 with Retry-After; another organization is not', async () => {
        const a = await orgWithAdmin('Test flood', `flood-${dialect}-${store}@a.example`);
        const b = await orgWithAdmin('Quiet', `quiet-${dialect}-${store}@b.example`);
        const endpointA = await insertEndpointFixture(server.system, { organizationId: a.org, url: `${fine.url}/a` });
        const endpointB = await insertEndpointFixture(server.system, { organizationId: b.org, url: `${fine.url}/b` });
        const send = (s: Signed, endpointId: string) =>
          consoleCall(server.url, s, `/console/api/webhook-endpoints/${endpointId}/test`, { method: 'POST' });
        // The limiter counts in windows of a whole minute (store.ts, windowStart): seven sends that
        // straddled a minute's end would be counted in two windows and the sixth let through.
        const leftInMinute = 60_000 - (Date.now() % 60_000);
        if (leftInMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
        for (let i = 0; i < 4; i++) assert.equal((await send(a.session, endpointA.endpointId)).status, 202);
        const first = await send(a.session, endpointA.endpointId);
        assert.equal(first.status, 202);
        const redeliver = await consoleCall(
          server.url,
          a.session,
          `/console/api/webhook-deliveries/${first.body.data.deliveryId}/redeliver`,
          {
            method: 'POST',
          },
        );
        assert.equal(redeliver.status, 429, JSON.stringify(redeliver.body));
        assert.equal(redeliver.body.error.code, 'rate_limit_exceeded');
        assert.ok(Number(redeliver.headers.get('retry-after')) >= 1);
        const refused = await send(a.session, endpointA.endpointId);
        assert.equal(refused.status, 429);
        assert.match(refused.body.error.message, /At most 5 test events and redeliveries/);
        assert.equal((await send(b.session, endpointB.endpointId)).status, 202, 'another organization still sends');
      });

      test('nothing of an event outlives its retention: no copy in deliveries; the clean-up removes them; no redelivery of an event gone', async () => {
        const T = Date.now();
        clock = T;
        try {
          const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name: 'Retention of deliveries' });
          const org = client.organizationId;
          const email = `retention-${dialect}-${store}@c.example`;
          await createAdminFor({ ctx: server.system, input: { organizationId: org, email, password: CONSOLE_PASSWORD }, actor: cli });
          let session = await consoleSignIn(server.url, email);
          await insertEndpointFixture(server.system, { organizationId: org, url: `${fine.url}/retention` });
          const token = await getToken(server.url, client);
          const marker = `Retention marker ${dialect} ${store}`;
          assert.equal((await post(server, token, minimal('VUL-7301', { title: marker }))).status, 201);
          const db = server.database.db.kysely;
          const deliveries = () => db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', org).execute();
          const [original] = await eventually(
            async () => {
              const rows = await deliveries();
              return rows.length === 1 && rows[0].status === 'succeeded' ? rows : undefined;
            },
            10_000,
            'the finding delivered',
          );
          assert.ok(
            fine.requests.some((r) => r.body.includes(marker)),
            'the receiver got the finding',
          );
          assert.equal(original.payload, null, 'the delivery keeps no copy of the event');

          // twenty days later the event is sent again; thirty-one days after it, the clean-up runs
          clock = T + 20 * DAY;
          session = await consoleSignIn(server.url, email); // sessions end well before that
          const again = await consoleCall(server.url, session, `/console/api/webhook-deliveries/${original.id}/redeliver`, {
            method: 'POST',
          });
          assert.equal(again.status, 202, JSON.stringify(again.body));
          await eventually(
            async () => ((await deliveries()).every((d) => d.status === 'succeeded') ? true : undefined),
            10_000,
            'redelivered',
          );
          clock = T + 31 * DAY;
          const blobs = openBlobStore(server.config);
          try {
            const result = await runCleanup({
              ctx: { db: server.database.db, blobs, now: () => clock! },
              input: { temporaryAgeMs: 3600_000 },
            });
            assert.ok(result.webhookDeliveries >= 1);
          } finally {
            await blobs.close();
          }
          const left = await deliveries();
          assert.deepEqual(
            left.map((d) => d.id),
            [again.body.data.deliveryId],
            'the delivery made with the event went; the later redelivery stays (as the console lists it) without the event',
          );
          const attempts = await db
            .selectFrom('webhook_delivery_attempts')
            .select('delivery_id')
            .where('organization_id', '=', org)
            .execute();
          assert.deepEqual(
            attempts.map((a) => a.delivery_id),
            [again.body.data.deliveryId],
            'attempts went with their delivery',
          );
          const stored = JSON.stringify(await db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', org).execute());
          assert.ok(!stored.includes(marker), 'no delivery row holds the finding');

          session = await consoleSignIn(server.url, email);
          const late = await consoleCall(server.url, session, `/console/api/webhook-deliveries/${again.body.data.deliveryId}/redeliver`, {
            method: 'POST',
          });
          assert.equal(late.status, 400, JSON.stringify(late.body));
          assert.equal(late.body.error.details[0].field, 'deliveryId');
          assert.match(late.body.error.details[0].message, /no longer kept/);
          const gone = await consoleCall(server.url, session, `/console/api/webhook-deliveries/${original.id}/redeliver`, {
            method: 'POST',
          });
          assert.equal(gone.status, 404);
        } finally {
          clock = undefined;
        }
      });

      test('a hundred rotations in a day: two signatures at most, and the SDK verifies with the current secret', async () => {
        const { org, session } = await orgWithAdmin('Rotation flood', `rotations-${dialect}-${store}@d.example`);
        const { endpointId } = await insertEndpointFixture(server.system, { organizationId: org, url: `${fine.url}/rotations` });
        let secret = '';
        for (let i = 0; i < 100; i++) {
          const res = await consoleCall(server.url, session, `/console/api/webhook-endpoints/${endpointId}/rotate-secret`, {
            method: 'POST',
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          secret = res.body.data.secret;
        }
        const seen = fine.requests.length;
        assert.equal(
          (await consoleCall(server.url, session, `/console/api/webhook-endpoints/${endpointId}/test`, { method: 'POST' })).status,
          202,
        );
        const [request] = (await fine.waitFor(seen + 1)).slice(seen);
        assert.equal(request.headers['webhook-signature'].split(' ').length, 2, 'the current and the previous secret sign');
        const event = (await webhooks.verify(request.body, request.headers, secret)) as { type: string };
        assert.equal(event.type, 'webhook.test');
      });
    });
  }
}
