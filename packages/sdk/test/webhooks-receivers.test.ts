// The README's receivers, over real sockets: a node:http server and a Fastify route that keeps the
// raw body (as README.md shows them) verify requests signed by `standardwebhooks` and sent with
// fetch, and answer 400 to a tampered body and to a stale timestamp, while a Fastify route outside
// the webhook plugin still gets parsed JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError, webhooks, type WebhookEvent } from '../src/index.ts';

const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const event = {
  eventId: 'evt_01JD6Z8QK4V9W3X2Y1Z0ABCDEF',
  type: 'vulnerability.updated',
  occurredAt: Date.now(),
  resourceType: 'vulnerability',
  resourceId: 'api%23VUL-9042',
  data: { changes: { status: { before: 'open', after: 'closed' } } },
};
const BODY = JSON.stringify(event);

function signedHeaders(body: string, at = Date.now()): Record<string, string> {
  const timestamp = Math.floor(at / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': event.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(SECRET).sign(event.eventId, new Date(timestamp * 1000), body),
  };
}

describe('receivers as the README writes them', () => {
  const received: WebhookEvent[] = [];
  let plain: http.Server;
  let plainUrl: string;
  let fastify: FastifyInstance;
  let fastifyUrl: string;

  before(async () => {
    plain = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        received.push(await webhooks.verify(Buffer.concat(chunks), req.headers, SECRET));
        res.writeHead(204).end();
      } catch (err) {
        res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end(err instanceof WebhookVerificationError ? err.reason : '');
      }
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/hooks/compliance`;

    fastify = Fastify();
    fastify.register(async (hooks) => {
      hooks.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
      hooks.post('/hooks/compliance', async (request, reply) => {
        try {
          received.push(await webhooks.verify(request.body as string, request.headers, SECRET));
        } catch (err) {
          if (err instanceof WebhookVerificationError) return reply.code(400).send(err.reason);
          throw err;
        }
        return reply.code(204).send();
      });
    });
    fastify.post('/other', async (request) => ({ bodyType: typeof request.body }));
    fastifyUrl = await fastify.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await fastify.close();
    await new Promise((resolve) => plain.close(resolve));
  });

  for (const [name, url] of [
    ['node:http', () => plainUrl],
    ['Fastify', () => `${fastifyUrl}/hooks/compliance`],
  ] as const) {
    test(`${name}: a signed request is accepted; a tampered body or a stale timestamp is 400 with the reason`, async () => {
      received.length = 0;
      const send = (body: string, headers: Record<string, string>) => fetch(url(), { method: 'POST', body, headers });
      const accepted = await send(BODY, signedHeaders(BODY));
      assert.equal(accepted.status, 204);
      assert.deepEqual(received, [event]);

      const tampered = await send(BODY.replace('closed', 'open!'), signedHeaders(BODY));
      assert.equal(tampered.status, 400);
      assert.equal(await tampered.text(), 'no_matching_signature');

      const stale = await send(BODY, signedHeaders(BODY, Date.now() - 10 * 60_000));
      assert.equal(stale.status, 400);
      assert.equal(await stale.text(), 'timestamp_too_old');
      assert.equal(received.length, 1);
    });
  }

  test('Fastify: routes outside the webhook plugin still get parsed JSON', async () => {
    const res = await fetch(`${fastifyUrl}/other`, { method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } });
    assert.deepEqual(await res.json(), { bodyType: 'object' });
  });
});
