// End-to-end webhook delivery latency on PostgreSQL: from the commit that enqueues a delivery to
// the request reaching a loopback receiver, p50 and p99, with one node and with two (real server
// processes, src/main.ts, sharing the database). Three ways a delivery is enqueued, measured side
// by side in the same run:
//   on a node    the console's send-test route on one of the nodes (round robin): the node's own
//                worker is nudged in-process (src/domain/webhooks/nudge.ts) and every node hears
//                the commit's NOTIFY (src/storage/db/delivery-announcements.ts);
//   elsewhere    a delivery inserted with its announcement in a transaction of this process (as a
//                write's fan-out does, src/domain/webhooks/enqueue.ts): only the NOTIFY at its
//                commit wakes the nodes;
//   poll only    the same rows inserted without the NOTIFY: the nodes find them at their next poll
//                (WEBHOOK_POLL_MS), which is what delivery latency would be without announcements.
// Deliveries are sent one at a time, each after the previous arrived plus a random pause of up to
// one poll interval (without it the worker, just done with the previous one, would find the next at
// once and no delivery would wait for a poll), so each measures the path of one delivery and not a
// queue. The start is the delivery's created_at, taken in the
// enqueuing transaction just before its commit; the end is the receiver's clock (same machine).
//
//   TEST_DATABASE_URL=postgres://… node bench/webhook-latency.ts [--count 100] [--poll-ms 500]
import http from 'node:http';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { createAdmin } from '../src/domain/console/create-admin.ts';
import { contextSecretsKey, encryptSigningSecret, generateSigningSecret } from '../src/domain/webhooks/signing-secrets.ts';
import { insertEndpoint, insertSecret } from '../src/storage/db/repositories/events/webhook-endpoints.ts';
import { announceDeliveries, insertDeliveries } from '../src/storage/db/repositories/events/webhook-deliveries.ts';
import { newDeliveryId } from '../src/domain/webhooks/delivery-id.ts';
import { freePort, ROOT, startChild, type Child } from './lib/child.ts';
import { formatTable } from './lib/table.ts';
import { postgresUrl } from './lib/bench-database.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100' }, 'poll-ms': { type: 'string', default: '500' } } });
const COUNT = Number(values.count);
const POLL_MS = values['poll-ms'];
const base = postgresUrl();
if (!base) {
  console.error('webhook-latency measures PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  process.exit(64);
}

// ---- the database ----
const schema = `cds_bench_hooks_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
await admin.end();
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const databaseUrl = url.toString();
const db = openDb({ databaseUrl });
await migrateToLatest(db);
const ctx = { db, region: 'us' as const, now: Date.now };
const organizationId = (await createOrganization({ ctx, input: { name: 'Bench hooks' } })).id;
const PASSWORD = 'bench password, long enough';
await createAdmin({
  ctx: { ...ctx, actor: { type: 'cli', id: null, label: 'bench', ip: null, userAgent: null, organizationId } },
  input: { email: 'bench@example.com', password: PASSWORD },
});

// ---- the receiver: when each webhook-id arrived ----
const arrivals = new Map<string, number>();
let arrived: (() => void) | undefined;
const receiver = http.createServer((req, res) => {
  const id = String(req.headers['webhook-id']);
  req.resume();
  req.on('end', () => {
    arrivals.set(id, Date.now());
    res.writeHead(204).end();
    arrived?.();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/`;

const endpointId = `whe_${randomUUID()}`;
await insertEndpoint(db.kysely, {
  id: endpointId,
  organizationId,
  url: receiverUrl,
  description: 'bench receiver',
  eventTypes: ['*'],
  status: 'enabled',
  disabledReason: null,
  failingSince: null,
  createdAt: Date.now(),
  updatedAt: Date.now(),
});
await insertSecret(db.kysely, {
  id: `whs_${randomUUID()}`,
  endpointId,
  organizationId,
  secretCiphertext: encryptSigningSecret(await contextSecretsKey(ctx), endpointId, generateSigningSecret()),
  createdAt: Date.now(),
  expiresAt: null,
});

// A benchmark stopped half-way must not leave its nodes running.
process.once('SIGTERM', () => process.exit(143));
process.once('SIGINT', () => process.exit(130));

// ---- the nodes ----
async function startNode(): Promise<Child> {
  const port = await freePort();
  return startChild(
    [path.join(ROOT, 'src/main.ts')],
    {
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      OPS_PORT: 'off',
      DEMO_ON_EMPTY: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: String(1e9),
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_POLL_MS: POLL_MS,
    },
    port,
  );
}

async function signIn(node: Child): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${node.url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
  });
  const body = (await res.json()) as { data: { csrfToken: string } };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: body.data.csrfToken };
}

/** Waits until `eventId` has arrived (or 30 s), and returns the latency from `start`. */
async function latencyOf(eventId: string, start: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (!arrivals.has(eventId)) {
    if (Date.now() > deadline) throw new Error(`${eventId} did not arrive within 30 s`);
    await new Promise<void>((resolve) => {
      arrived = resolve;
      setTimeout(resolve, 100);
    });
  }
  return arrivals.get(eventId)! - start;
}

type Way = 'on a node' | 'elsewhere' | 'poll only';

async function measure(nodes: Child[], way: Way, count = COUNT): Promise<number[]> {
  const sessions = await Promise.all(nodes.map(signIn));
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * Number(POLL_MS)));
    if (way === 'on a node') {
      const n = i % nodes.length;
      const res = await fetch(`${nodes[n].url}/console/api/webhook-endpoints/${endpointId}/test`, {
        method: 'POST',
        headers: { cookie: sessions[n].cookie, 'x-csrf-token': sessions[n].csrf },
      });
      if (res.status !== 202) throw new Error(`send test answered ${res.status}: ${await res.text()}`);
      const { data } = (await res.json()) as { data: { eventId: string; createdAt: number } };
      latencies.push(await latencyOf(data.eventId, data.createdAt));
    } else {
      const eventId = `evt_${randomBytes(13).toString('hex').slice(0, 26).toUpperCase()}`;
      const payload = JSON.stringify({ eventId, type: 'webhook.test', occurredAt: Date.now(), data: {} });
      const start = Date.now();
      const row = { organization_id: organizationId, endpoint_id: endpointId, event_id: eventId, event_type: 'webhook.test', payload };
      const rows = [{ ...row, id: newDeliveryId(start), status: 'pending' as const, next_attempt_at: start, created_at: start }];
      // elsewhere: committed with the NOTIFY that recordEvents' fan-out sends; poll only: without it
      if (way === 'elsewhere') {
        await db.kysely.transaction().execute(async (trx) => {
          await insertDeliveries(trx, rows);
          await announceDeliveries(trx);
        });
      } else await insertDeliveries(db.kysely, rows);
      latencies.push(await latencyOf(eventId, start));
    }
  }
  return latencies;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const rows: string[][] = [];
const nodes: Child[] = [];
try {
  nodes.push(await startNode());
  for (const count of [1, 2]) {
    if (nodes.length < count) nodes.push(await startNode());
    for (const way of ['on a node', 'elsewhere', 'poll only'] as const) {
      await measure(nodes, way, 10); // warm-up, not reported
      const latencies = await measure(nodes, way);
      rows.push([`${count}`, way, String(COUNT), `${pct(latencies, 50)}`, `${pct(latencies, 99)}`, `${Math.max(...latencies)}`]);
      console.log(`${count} node(s), enqueued ${way}: p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms`);
    }
  }
} finally {
  await Promise.all(nodes.map((n) => n.stop()));
  receiver.close();
  await db.close();
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`drop schema if exists ${schema} cascade`);
  await c.end();
}

console.log(`\nWebhook delivery latency, commit to receiver (PostgreSQL, WEBHOOK_POLL_MS=${POLL_MS}, ${COUNT} deliveries one at a time)\n`);
console.log(formatTable(['nodes', 'enqueued', 'n', 'p50 ms', 'p99 ms', 'max ms'], rows, [true, false, true, true, true, true]));
