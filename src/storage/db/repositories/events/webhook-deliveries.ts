// Webhook deliveries and their attempts (migration 0010; docs/decisions/events-and-webhooks.md,
// "Webhook delivery across nodes"): the fan-out at write time, the leased claim of due rows by the workers of every
// node, the outcome of each attempt, and what the console lists. The endpoint columns the
// delivery owns (its failing run, disabling it) are written here too; the rest of the endpoint is
// repositories/events/webhook-endpoints.ts's.
import { PostgresAdapter, sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../../connect.ts';
import type { Database, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from '../../schema.ts';
import { instanceAlive } from '../service/server-instances.ts';

type Q = Kysely<Database>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookDeliveryAttemptsTable>;

/** Lease owners that are not server instances (an app built without a heartbeat) start with this: only their lease bounds them. */
export const LOCAL_OWNER_PREFIX = 'local:';

const num = (v: number | null) => (v === null ? null : Number(v));
const toDelivery = (r: DeliveryRow): DeliveryRow => ({
  ...r,
  attempts: Number(r.attempts),
  next_attempt_at: Number(r.next_attempt_at),
  lease_until: num(r.lease_until),
  last_attempt_at: num(r.last_attempt_at),
  last_status_code: num(r.last_status_code),
  last_latency_ms: num(r.last_latency_ms),
  created_at: Number(r.created_at),
});

/** The organization's enabled endpoints with the event types each subscribes to (JSON text), for the fan-out. */
export async function listEnabledEndpoints(db: Q, organizationId: string): Promise<Array<{ id: string; eventTypes: string }>> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'enabled')
    .execute();
  return rows.map((r) => ({ id: r.id, eventTypes: r.event_types }));
}

/** The PostgreSQL channel on which a commit that enqueued deliveries wakes every node's worker (db/delivery-announcements.ts). */
export const DELIVERIES_CHANNEL = 'cds_webhook_deliveries';

/**
 * On PostgreSQL, announces the transaction's new deliveries to every listening node: a NOTIFY is
 * delivered when the transaction commits and never when it rolls back, so no node looks before the
 * rows are visible. SQLite has no such thing (its workers poll, and are nudged in-process).
 */
export async function announceDeliveries(db: Q): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(db);
}

export async function insertDeliveries(db: Q, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  // a write's events times its endpoints: a handful of rows; chunked so a bulk change stays within bind limits
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 500))
      .execute();
}

export interface ClaimOptions {
  owner: string;
  now: number;
  /** the lease taken: another worker may take the row after it */
  leaseUntil: number;
  /** an owner (a server instance) without a heartbeat since then is gone, and its leases free */
  aliveSince: number;
  limit: number;
  /** deliveries one organization may have in flight, across all nodes (WEBHOOK_ORG_CONCURRENCY) */
  orgConcurrency: number;
  /** deliveries one endpoint may have in flight, across all nodes (WEBHOOK_ENDPOINT_CONCURRENCY) */
  endpointConcurrency: number;
}

/** Due rows looked at per round of a claim, at least: enough to find other organizations' rows behind a backlog. */
const CLAIM_WINDOW = 256;
/** Rounds of a claim: each excludes the organizations and endpoints the previous ones filled. */
const CLAIM_ROUNDS = 3;

type Held = Map<string, number>;
const bump = (m: Held, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

/**
 * Leases up to `limit` due deliveries to `owner`, fairly across organizations and endpoints (issue
 * 28, item 3): no organization or endpoint gets more than its concurrency in flight (counted over
 * every node's live leases), and among the organizations with room, the one with the least in
 * flight is served first, then the oldest due delivery. So one tenant's silent receivers hold at
 * most WEBHOOK_ORG_CONCURRENCY slots, and another tenant's delivery is next as soon as one frees.
 *
 * Due rows are read oldest first in windows, each excluding the organizations and endpoints
 * already full, so a backlog of one organization does not hide the others' rows; the caps are
 * checked at the claim's read, so nodes claiming at the same moment may pass one by a delivery
 * each. The lease is then taken in one statement that re-checks each row: on PostgreSQL its inner
 * SELECT locks the rows with FOR UPDATE SKIP LOCKED, so workers of several nodes take disjoint rows
 * without waiting for each other; on SQLite the write lock serializes claims.
 */
export async function claimDueDeliveries(db: Q, dialect: DialectName, o: ClaimOptions): Promise<DeliveryRow[]> {
  const orgHeld: Held = new Map();
  const endpointHeld: Held = new Map();
  const held = await db
    .selectFrom('webhook_deliveries')
    .select(['organization_id', 'endpoint_id', sql<number>`count(*)`.as('n')])
    .where('status', '=', 'pending')
    .where('lease_until', '>', o.now)
    .where((eb) =>
      eb.or([eb('lease_owner', 'like', `${LOCAL_OWNER_PREFIX}%`), instanceAlive('webhook_deliveries.lease_owner', o.aliveSince)]),
    )
    .groupBy(['organization_id', 'endpoint_id'])
    .execute();
  for (const h of held) {
    orgHeld.set(h.organization_id, (orgHeld.get(h.organization_id) ?? 0) + Number(h.n));
    endpointHeld.set(h.endpoint_id, Number(h.n));
  }

  const picked: string[] = [];
  const window = Math.max(CLAIM_WINDOW, o.limit * 16);
  for (let round = 0; round < CLAIM_ROUNDS && picked.length < o.limit; round++) {
    const fullOrgs = [...orgHeld].filter(([, n]) => n >= o.orgConcurrency).map(([id]) => id);
    const fullEndpoints = [...endpointHeld].filter(([, n]) => n >= o.endpointConcurrency).map(([id]) => id);
    const due = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'organization_id', 'endpoint_id'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', o.now)
      .where((eb) => claimable(eb, o))
      .$if(fullOrgs.length > 0, (q) => q.where('organization_id', 'not in', fullOrgs))
      .$if(fullEndpoints.length > 0, (q) => q.where('endpoint_id', 'not in', fullEndpoints))
      .$if(picked.length > 0, (q) => q.where('id', 'not in', picked))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(window)
      .execute();
    pickFairly(due, picked, orgHeld, endpointHeld, o);
    if (due.length < window) break;
  }
  if (picked.length === 0) return [];

  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: o.owner, lease_until: o.leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('id', 'in', picked)
        .where('status', '=', 'pending')
        .where((inner) => claimable(inner, o))
        .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
    )
    // PostgreSQL re-checks a row updated meanwhile (EvalPlanQual); status must still be pending
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
  return rows.map(toDelivery);
}

/** Not leased, or leased by a worker whose lease is over or whose server instance stopped beating. */
function claimable(eb: ExpressionBuilder<Database, 'webhook_deliveries'>, o: ClaimOptions) {
  return eb.or([
    eb('lease_until', 'is', null),
    eb('lease_until', '<=', o.now),
    eb.and([
      eb('lease_owner', 'not like', `${LOCAL_OWNER_PREFIX}%`),
      eb.not(instanceAlive('webhook_deliveries.lease_owner', o.aliveSince)),
    ]),
  ]);
}

/**
 * Adds to `picked` from `due` (oldest first) in turns: each turn serves the organizations with
 * room, fewest in flight first (oldest due breaking ties), one delivery each, from an endpoint with
 * room. Counts in `orgHeld` and `endpointHeld` grow with what is picked.
 */
function pickFairly(
  due: ReadonlyArray<{ id: string; organization_id: string; endpoint_id: string }>,
  picked: string[],
  orgHeld: Held,
  endpointHeld: Held,
  o: ClaimOptions,
): void {
  const queues = new Map<string, Array<{ id: string; endpoint_id: string }>>();
  for (const row of due) {
    let queue = queues.get(row.organization_id);
    if (!queue) queues.set(row.organization_id, (queue = []));
    queue.push(row);
  }
  let progressed = true;
  while (progressed && picked.length < o.limit) {
    progressed = false;
    const turn = [...queues.keys()]
      .filter((org) => (orgHeld.get(org) ?? 0) < o.orgConcurrency)
      .sort((a, b) => (orgHeld.get(a) ?? 0) - (orgHeld.get(b) ?? 0)); // stable: oldest due first among equals
    for (const org of turn) {
      if (picked.length >= o.limit) break;
      const queue = queues.get(org)!;
      const at = queue.findIndex((row) => (endpointHeld.get(row.endpoint_id) ?? 0) < o.endpointConcurrency);
      if (at < 0) {
        queues.delete(org);
        continue;
      }
      const [row] = queue.splice(at, 1);
      picked.push(row.id);
      bump(orgHeld, org);
      bump(endpointHeld, row.endpoint_id);
      if (queue.length === 0) queues.delete(org);
      progressed = true;
    }
  }
}

/** Gives leases back unattempted (a worker stopping): due at once for any worker. */
export async function releaseLeases(db: Q, owner: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('id', 'in', ids)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface AttemptOutcome {
  id: string;
  owner: string;
  at: number;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

/**
 * Records an attempt's outcome on the delivery and frees its lease, only while `owner` still
 * holds it; returns the attempt's number, or undefined when the lease was lost (another worker
 * took the row over, and records its own attempt).
 */
export async function finishAttempt(db: Q, o: AttemptOutcome): Promise<number | undefined> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      status: o.status,
      next_attempt_at: o.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      last_attempt_at: o.at,
      last_status_code: o.statusCode,
      last_latency_ms: o.latencyMs,
      last_error: o.error,
    }))
    .where('id', '=', o.id)
    .where('lease_owner', '=', o.owner)
    .where('status', '=', 'pending')
    .returning('attempts')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.attempts);
}

export async function insertAttempt(db: Q, row: Insertable<WebhookDeliveryAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
}

/** Ends a delivery without an attempt (its endpoint is gone or disabled). */
export async function failDelivery(db: Q, id: string, owner: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', lease_owner: null, lease_until: null, last_error: reason })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .execute();
}

/** A success ends the endpoint's failing run. */
export async function clearFailing(db: Q, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', endpointId)
    .where('failing_since', 'is not', null)
    .execute();
}

/** A failure starts the endpoint's failing run unless one is under way; returns the run's start. */
export async function markFailing(db: Q, endpointId: string, at: number): Promise<number | undefined> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpointId).executeTakeFirst();
  return row?.failing_since === null || row === undefined ? undefined : Number(row.failing_since);
}

/** Disables an enabled endpoint; false when it was already disabled (or is gone): someone else did it. */
export async function disableEndpoint(db: Q, endpointId: string, reason: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', endpointId)
    .where('status', '=', 'enabled')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The organization's delivery (undefined: none such in it). */
export async function getDelivery(db: Q, organizationId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row && toDelivery(row);
}

/** An endpoint's deliveries, newest first; `before` is the (created_at, id) of the last one of the previous page. */
export async function listEndpointDeliveries(
  db: Q,
  organizationId: string,
  endpointId: string,
  options: { limit: number; before?: { createdAt: number; id: string } },
): Promise<DeliveryRow[]> {
  const before = options.before;
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .$if(before !== undefined, (q) =>
      q.where((eb) =>
        eb.or([eb('created_at', '<', before!.createdAt), eb.and([eb('created_at', '=', before!.createdAt), eb('id', '<', before!.id)])]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .execute();
  return rows.map(toDelivery);
}

/** A delivery's attempts, first to last. */
export async function listAttempts(db: Q, organizationId: string, deliveryId: string): Promise<AttemptRow[]> {
  const rows = await db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .where('organization_id', '=', organizationId)
    .orderBy('attempt')
    .execute();
  return rows.map((r) => ({
    ...r,
    attempt: Number(r.attempt),
    at: Number(r.at),
    status_code: num(r.status_code),
    latency_ms: num(r.latency_ms),
  }));
}

/** Counts by status (tests and benchmarks watch a batch drain). */
export async function countDeliveriesByStatus(db: Q, organizationId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['status', sql<number>`count(*)`.as('n')])
    .where('organization_id', '=', organizationId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Removes at most `limit` deliveries created before `cutoff` (any organization), with their
 * attempts, oldest first; answers how many deliveries it removed, so the caller repeats until fewer
 * than `limit` go. Attempts go first, so an interrupted run leaves no attempt without its delivery.
 */
export async function deleteDeliveriesBefore(db: Q, cutoff: number, limit: number): Promise<number> {
  const victims = (
    await db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(limit).execute()
  ).map((r) => r.id);
  if (victims.length === 0) return 0;
  await db.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', victims).execute();
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', victims).executeTakeFirst();
  return Number(result.numDeletedRows);
}
