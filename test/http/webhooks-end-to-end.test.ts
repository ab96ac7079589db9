// Issue 15 end to end, on every database engine: an endpoint registered as an administrator does,
// real writes over HTTP, and the app's own worker delivering to a loopback receiver. Each request
// carries the very event the feed gives (same eventId as webhook-id, same JSON), verifies with the
// `standardwebhooks` package and with the SDK's webhooks.verify, and a tampered body fails both;
// administrators' events (credential.*), which the feed leaves out, arrive by webhook.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { dialects } from '../harness/engines.ts';
import { addCredential, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { minimal, patch, post, show } from '../harness/vulnerability-writes.ts';
import { readAll } from '../harness/events.ts';
import { startReceiver, type Receiver } from '../harness/webhooks.ts';
import { createEndpoint } from '../../src/domain/webhooks/create-endpoint.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { webhooks, WebhookVerificationError } from '../../packages/sdk/src/index.ts';

const operator = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

for (const dialect of dialects) {
  describe(`webhooks end to end (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;

    before(async () => {
      server = await startServer({ dialect, env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' } });
      receiver = await startReceiver(204);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    test('a write is delivered as the feed shows it, signed; SDK and standardwebhooks verify it; a tampered body fails', async () => {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name: 'Hooks end to end' });
      const org = client.organizationId;
      const admin = { ...server.system, actor: { ...operator, organizationId: org } };
      const { secret } = await createEndpoint({ ctx: admin, input: { url: `${receiver.url}/hooks`, eventTypes: ['*'] } });
      assert.match(secret, /^whsec_/);
      const token = await getToken(server.url, client);
      const seen = receiver.requests.length;

      const created = await post(server, token, minimal('VUL-7001'));
      assert.equal(created.status, 201, show(created));
      const updated = await patch(server, token, 'api%23VUL-7001', { reportLink: 'https://example.com/report' });
      assert.equal(updated.status, 200, show(updated));

      const requests = (await receiver.waitFor(seen + 2)).slice(seen);
      const { events } = await readAll(server, token);
      assert.deepEqual(
        events.map((e: { type: string }) => e.type),
        ['vulnerability.created', 'vulnerability.updated'],
      );
      const byId = new Map(requests.map((r) => [r.headers['webhook-id'], r]));
      for (const event of events) {
        const request = byId.get(event.eventId);
        assert.ok(request, `event ${event.eventId} (${event.type}) delivered with its eventId as webhook-id`);
        assert.equal(request.headers['content-type'], 'application/json');
        assert.deepEqual(JSON.parse(request.body), event, 'the request body is the feed event');
        const verified = new Webhook(secret).verify(request.body, request.headers);
        assert.deepEqual(verified, event);
        assert.deepEqual(await webhooks.verify(request.body, request.headers, secret), event);
        const tampered = request.body.replace('VUL-7001', 'VUL-7002');
        assert.throws(() => new Webhook(secret).verify(tampered, request.headers));
        await assert.rejects(webhooks.verify(tampered, request.headers, secret), WebhookVerificationError);
      }
    });

    test('credential events, absent from the feed, reach an endpoint subscribed to them', async () => {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_only', name: 'Hooks credentials' });
      const org = client.organizationId;
      const admin = { ...server.system, actor: { ...operator, organizationId: org } };
      const endpoint = await createEndpoint({
        ctx: admin,
        input: { url: `${receiver.url}/credentials`, eventTypes: ['credential.revoked'] },
      });
      const other = await addCredential(server.system, org, 'read_only');
      const seen = receiver.requests.length;
      await revokeCredential({ ctx: admin, input: { credentialId: other.credentialId } });

      const [request] = (await receiver.waitFor(seen + 1)).slice(seen);
      assert.equal(request.path, '/credentials');
      const event = (await webhooks.verify(request.body, request.headers, endpoint.secret)) as {
        type: string;
        resourceId: string;
      };
      assert.equal(event.type, 'credential.revoked');
      assert.equal(event.resourceId, other.credentialId);
      const { events } = await readAll(server, await getToken(server.url, client));
      assert.deepEqual(events, [], 'credential events stay out of the feed');
    });
  });
}
