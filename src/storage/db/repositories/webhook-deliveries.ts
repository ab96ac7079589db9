// Webhook deliveries and their attempts (migration 0010; docs/decisions/events-and-webhooks.md,
// "Webhook delivery across nodes"): the fan-out at write time, the leased claim of due rows by the workers of every
// node, the outcome of each attempt, and what the console lists. The endpoint columns the
// delivery owns (its failing run, disabling it) are written here too; the rest of the endpoint is
// repositories/webhook-endpoints.ts's.
import { PostgresAdapter, sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../connect.ts';
import type { Database, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from '../schema.ts';
import { instanceAlive } from './server-instances.ts';

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
}

/**
 * Leases up to `limit` due deliveries to `owner`, oldest due first: pending, due, and not leased,
 * or leased by a worker whose lease is over or whose server instance stopped beating. One
 * statement: on PostgreSQL the inner SELECT locks the rows it picks with FOR UPDATE SKIP LOCKED, so
 * workers of several nodes claiming at once take disjoint rows without waiting for each other; on
 * SQLite the write lock serializes claims.
 */
export async function claimDueDeliveries(db: Q, dialect: DialectName, o: ClaimOptions): Promise<DeliveryRow[]> {
  const due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', o.now)
    .where((eb) =>
      eb.or([
        eb('lease_until', 'is', null),
        eb('lease_until', '<=', o.now),
        eb.and([
          eb('lease_owner', 'not like', `${LOCAL_OWNER_PREFIX}%`),
          eb.not(instanceAlive('webhook_deliveries.lease_owner', o.aliveSince)),
        ]),
      ]),
    )
    .orderBy('next_attempt_at')
    .limit(o.limit)
    .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked());
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: o.owner, lease_until: o.leaseUntil })
    .where('id', 'in', due)
    // PostgreSQL re-checks a row updated meanwhile (EvalPlanQual); status must still be pending
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
  return rows.map(toDelivery);
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
