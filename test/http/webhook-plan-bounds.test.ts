// Issue 28, items 1 and 2, on every engine, over HTTP: a plan that excludes a resource excludes it
// from webhooks as from the API. An endpoint cannot subscribe to an excluded resource's events, and
// one subscribed to "*" receives none of them; after the plan drops evidence, the feed's computed
// control events no longer name the evidence that caused them, a redelivery sends them without it,
// and an evidence event is not redelivered at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, getToken, startServer, type TestServer } from '../harness/server.ts';
import { consoleCall, consoleSignIn, CONSOLE_PASSWORD } from '../harness/console-session.ts';
import { completableEvidence, readAll, storedEvents } from '../harness/events.ts';
import { newKey } from '../harness/vulnerability-writes.ts';
import { eventually, startReceiver, type Receiver } from '../harness/webhooks.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { webhooks } from '../../packages/sdk/src/index.ts';

const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

for (const dialect of dialects) {
  describe(`the plan bounds webhooks and the feed (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let blobDir: string;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-plan-bounds-'));
      server = await startServer({
        dialect,
        env: { RATE_LIMIT_MAX: '100000', BLOB_DIR: blobDir, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' },
      });
      receiver = await startReceiver(204);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    /** A demo organization (scale 1) with a signed-in administrator and a read-write token. */
    async function demoOrg(name: string, email: string) {
      const demo = await createDemoOrganization(server.system, { scale: 1, name });
      const org = demo.organization.id;
      await createAdminFor({ ctx: server.system, input: { organizationId: org, email, password: CONSOLE_PASSWORD }, actor: cli });
      return { org, session: await consoleSignIn(server.url, email), token: await getToken(server.url, demo.readWrite), demo };
    }

    /** Uploads files to evidence records until one flips a control; answers that record's ID. */
    async function flipControl(org: string, token: string): Promise<string> {
      for (const evidenceId of await completableEvidence(server.database, org, 20)) {
        const form = new FormData();
        form.append('evidenceDate', String(Date.now() - 60_000));
        form.append('files', new Blob([new TextEncoder().encode('x\n')]), 'x.txt');
        const res = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': newKey() },
          body: form,
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const flipped = (await storedEvents(server.database, org)).some(
          (e) => e.type === 'control.status_changed' && e.data.cause?.resourceId === evidenceId,
        );
        if (flipped) return evidenceId;
      }
      throw new Error('no upload to the demo’s evidence flipped a control');
    }

    const typesDelivered = async (org: string) =>
      (
        await server.database.db.kysely
          .selectFrom('webhook_deliveries')
          .select('event_type')
          .distinct()
          .where('organization_id', '=', org)
          .execute()
      )
        .map((r) => r.event_type)
        .sort();

    test('an endpoint cannot subscribe to an excluded resource’s events, and "*" receives none of them', async () => {
      const { org, session, token } = await demoOrg('Plan without controls', 'admin@no-controls.example');
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId: org, plan: 'policy,evidence,test,vulnerability' } });
      const url = `${receiver.url}/no-controls`;

      const named = await consoleCall(server.url, session, '/console/api/webhook-endpoints', {
        method: 'POST',
        body: { url, eventTypes: ['evidence.status_changed', 'control.status_changed', 'framework.progress_changed'] },
      });
      assert.equal(named.status, 403, JSON.stringify(named.body));
      assert.equal(named.body.error.code, 'plan_restricted');
      assert.match(named.body.error.message, /control, framework/);
      assert.match(named.body.error.message, /control\.status_changed, framework\.progress_changed/);

      const all = await consoleCall(server.url, session, '/console/api/webhook-endpoints', {
        method: 'POST',
        body: { url, eventTypes: ['*'] },
      });
      assert.equal(all.status, 201, JSON.stringify(all.body));
      const endpointId = all.body.data.endpointId;
      const widened = await consoleCall(server.url, session, `/console/api/webhook-endpoints/${endpointId}`, {
        method: 'PATCH',
        body: { eventTypes: ['framework.progress_changed'] },
      });
      assert.equal(widened.status, 403, JSON.stringify(widened.body));
      assert.equal(widened.body.error.code, 'plan_restricted');

      await flipControl(org, token);
      const recorded = new Set((await storedEvents(server.database, org)).map((e) => e.type));
      assert.ok(recorded.has('framework.progress_changed'), 'the uploads moved a framework too');
      const evidenceEvents = (await storedEvents(server.database, org)).filter((e) => e.type.startsWith('evidence.'));
      await eventually(
        async () => receiver.requests.filter((r) => r.path === '/no-controls').length >= evidenceEvents.length || undefined,
        10_000,
        'the evidence events delivered',
      );
      await new Promise((resolve) => setTimeout(resolve, 300)); // a few more polls: nothing else comes
      const arrived = receiver.requests.filter((r) => r.path === '/no-controls').map((r) => JSON.parse(r.body).type);
      assert.deepEqual(new Set(arrived), new Set(['evidence.attachments_added', 'evidence.status_changed']));
      assert.equal(arrived.length, evidenceEvents.length);
      assert.deepEqual(
        await typesDelivered(org),
        ['evidence.attachments_added', 'evidence.status_changed'],
        'no delivery of an excluded type exists',
      );
    });

    test('after the plan drops evidence, the feed and redeliveries no longer name it; its own events are not redelivered', async () => {
      const { org, session, token, demo } = await demoOrg('Plan dropping evidence', 'admin@drop-evidence.example');
      const created = await consoleCall(server.url, session, '/console/api/webhook-endpoints', {
        method: 'POST',
        body: { url: `${receiver.url}/drop-evidence`, eventTypes: ['*'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { endpointId, secret } = created.body.data;

      const evidenceId = await flipControl(org, token);
      const before = (await readAll(server, token, { types: 'control.status_changed' })).events;
      assert.ok(before.some((e: any) => e.data.cause?.resourceId === evidenceId));
      for (const event of before) assert.equal(event.data.cause.type, 'evidence.status_changed');

      const deliveries = await eventually(
        async () => {
          const res = await consoleCall(server.url, session, `/console/api/webhook-endpoints/${endpointId}/deliveries?count=100`);
          const list = res.body.data as Array<{ deliveryId: string; eventType: string; status: string }>;
          return list.length > 0 && list.every((d) => d.status === 'succeeded') ? list : undefined;
        },
        10_000,
        'the upload’s deliveries',
      );

      await updateOrganizationPlan({
        ctx: server.system,
        input: { organizationId: org, plan: 'framework,control,policy,test,vulnerability' },
      });
      const after = await getToken(server.url, demo.readWrite);
      const { events } = await readAll(server, after);
      const controlEvents = events.filter((e: { type: string }) => e.type === 'control.status_changed');
      assert.equal(controlEvents.length, before.length);
      for (const event of controlEvents) assert.equal('cause' in event.data, false, 'the cause names evidence, which the plan hides');
      const controlText = JSON.stringify(controlEvents);
      for (const e of before) assert.ok(!controlText.includes(e.data.cause.resourceId), 'no control event names an evidence record');

      const control = deliveries.find((d) => d.eventType === 'control.status_changed')!;
      assert.ok(control, 'the control event was delivered before the plan changed');
      const seen = receiver.requests.length;
      const again = await consoleCall(server.url, session, `/console/api/webhook-deliveries/${control.deliveryId}/redeliver`, {
        method: 'POST',
      });
      assert.equal(again.status, 202, JSON.stringify(again.body));
      const [request] = (await receiver.waitFor(seen + 1)).slice(seen);
      const delivered = (await webhooks.verify(request.body, request.headers, secret)) as { type: string; data: Record<string, unknown> };
      assert.equal(delivered.type, 'control.status_changed');
      assert.equal('cause' in delivered.data, false);
      assert.ok(!request.body.includes(evidenceId));

      const evidence = deliveries.find((d) => d.eventType === 'evidence.status_changed')!;
      const refused = await consoleCall(server.url, session, `/console/api/webhook-deliveries/${evidence.deliveryId}/redeliver`, {
        method: 'POST',
      });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'plan_restricted');
    });
  });
}
