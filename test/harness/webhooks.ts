// What webhook delivery tests share: an endpoint with its signing secret stored as the endpoints'
// verbs store it (encrypted under the service's key), a secret rotation, events enqueued in a
// transaction of their own, and a loopback receiver that records every request and answers what
// the test tells it to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { BaseContext } from '../../src/domain/context.ts';
import { contextSecretsKey, encryptSigningSecret, generateSigningSecret } from '../../src/domain/webhooks/signing-secrets.ts';
import { enqueueDeliveries, type EnqueuedEvent } from '../../src/domain/webhooks/enqueue.ts';
import { expireSecrets, insertEndpoint, insertSecret } from '../../src/storage/db/repositories/events/webhook-endpoints.ts';
import type { Db } from '../../src/storage/db/connect.ts';
import { insertEvents, takeEventNumbers } from '../../src/storage/db/repositories/events/events.ts';

export interface EndpointFixture {
  endpointId: string;
  secret: string;
}

/** An enabled endpoint of `organizationId` at `url` and its first secret (as the endpoints' create verb stores them). */
export async function insertEndpointFixture(
  ctx: BaseContext,
  input: { organizationId: string; url: string; eventTypes?: string[] },
): Promise<EndpointFixture> {
  const endpointId = `whe_${randomUUID()}`;
  const now = ctx.now();
  await insertEndpoint(ctx.db.kysely, {
    id: endpointId,
    organizationId: input.organizationId,
    url: input.url,
    description: 'test receiver',
    eventTypes: input.eventTypes ?? ['*'],
    status: 'enabled',
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  });
  const secret = await addSecretFixture(ctx, input.organizationId, endpointId);
  return { endpointId, secret };
}

/** A new current secret; the previous ones keep signing until `overlapEndsAt` (a rotation). */
export async function addSecretFixture(
  ctx: BaseContext,
  organizationId: string,
  endpointId: string,
  overlapEndsAt?: number,
): Promise<string> {
  const secret = generateSigningSecret();
  const key = await contextSecretsKey(ctx);
  if (overlapEndsAt !== undefined) await expireSecrets(ctx.db.kysely, organizationId, endpointId, overlapEndsAt);
  await insertSecret(ctx.db.kysely, {
    id: `whs_${randomUUID()}`,
    endpointId,
    organizationId,
    secretCiphertext: encryptSigningSecret(key, endpointId, secret),
    createdAt: ctx.now(),
    expiresAt: null,
  });
  return secret;
}

/** A wire event as recordEvents makes it: its payload is the request body a delivery sends. */
export interface WireEvent extends EnqueuedEvent {
  payload: string;
}

export function testEvent(type = 'vulnerability.updated', data: Record<string, unknown> = { changes: {} }): WireEvent {
  const eventId = `evt_${randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase()}`;
  const payload = JSON.stringify({
    eventId,
    type,
    occurredAt: Date.now(),
    resourceType: type.split('.')[0],
    resourceId: 'api%23VUL-1',
    data,
  });
  return { eventId, type, payload };
}

/**
 * Stores `events` and enqueues their deliveries in a transaction of their own, as a write's
 * recordEvents would: a delivery's body is read from its stored event when it is sent.
 */
export async function enqueueEvents(db: Db, organizationId: string, events: WireEvent[], now = Date.now()): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const last = await takeEventNumbers(trx, organizationId, events.length);
    const rows = events.map((e, i) => {
      const wire = JSON.parse(e.payload) as { resourceType: string; resourceId: string; occurredAt: number; data: unknown };
      const { resourceType, resourceId, occurredAt } = wire;
      return {
        seq: last - events.length + 1 + i,
        id: e.eventId,
        type: e.type,
        resourceType,
        resourceId,
        occurredAt,
        data: JSON.stringify(wire.data),
      };
    });
    await insertEvents(trx, organizationId, rows);
    await enqueueDeliveries(trx, organizationId, events, now);
  });
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (and body), or `hang` (never answers), or a custom handler. */
export type Answer =
  | number
  | { status: number; body?: string; headers?: Record<string, string> }
  | 'hang'
  | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** answers for the next requests, in order; once used up, `fallback` */
  queue: Answer[];
  fallback: Answer;
  /** resolves when `n` requests have arrived */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Answer = 204): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const held: http.ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests,
    queue: [],
    fallback,
    waitFor: async (n, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} requests, expected ${n}, within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return requests;
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      for (const w of waiters.splice(0)) w();
      const answer = receiver.queue.length > 0 ? receiver.queue.shift()! : receiver.fallback;
      if (answer === 'hang') return void held.push(res);
      if (typeof answer === 'function') return answer(req, res);
      const {
        status,
        body,
        headers: extra,
      } = typeof answer === 'number' ? { status: answer, body: undefined, headers: undefined } : answer;
      res.writeHead(status, extra);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
