// Webhook endpoints and their signing secrets (tables of migration 0010). Every query that reads or
// changes an endpoint takes the organization, so one organization never reaches another's.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { listOldestFirst } from '../rows.ts';

type Q = Kysely<Database>;

export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  url: string;
  description: string;
  /** ["*"] is every type */
  eventTypes: string[];
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookSecretRecord {
  id: string;
  endpointId: string;
  organizationId: string;
  secretCiphertext: string;
  createdAt: number;
  expiresAt: number | null;
}

const toRecord = (row: Database['webhook_endpoints']): WebhookEndpointRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  url: row.url,
  description: row.description,
  eventTypes: JSON.parse(row.event_types) as string[],
  status: row.status,
  disabledReason: row.disabled_reason,
  failingSince: row.failing_since === null ? null : Number(row.failing_since),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export async function insertEndpoint(db: Q, e: WebhookEndpointRecord): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: e.id,
      organization_id: e.organizationId,
      url: e.url,
      description: e.description,
      event_types: JSON.stringify(e.eventTypes),
      status: e.status,
      disabled_reason: e.disabledReason,
      failing_since: e.failingSince,
      created_at: e.createdAt,
      updated_at: e.updatedAt,
    })
    .execute();
}

export async function findEndpoint(db: Q, organizationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

/** The organization's endpoints, oldest first. */
export async function listEndpoints(db: Q, organizationId: string): Promise<WebhookEndpointRecord[]> {
  return (await listOldestFirst(db, 'webhook_endpoints', organizationId)).map(toRecord);
}

export async function countEndpoints(db: Q, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface EndpointChanges {
  url?: string;
  description?: string;
  eventTypes?: string[];
  status?: 'enabled' | 'disabled';
  disabledReason?: string | null;
  failingSince?: number | null;
}

/** Applies `changes`; false when the endpoint does not exist in the organization. */
export async function updateEndpoint(db: Q, organizationId: string, id: string, changes: EndpointChanges, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.description !== undefined && { description: changes.description }),
      ...(changes.eventTypes !== undefined && { event_types: JSON.stringify(changes.eventTypes) }),
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.disabledReason !== undefined && { disabled_reason: changes.disabledReason }),
      ...(changes.failingSince !== undefined && { failing_since: changes.failingSince }),
      updated_at: now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes the endpoint and its secrets; false when it does not exist in the organization. */
export async function deleteEndpoint(db: Q, organizationId: string, id: string): Promise<boolean> {
  await db.deleteFrom('webhook_endpoint_secrets').where('organization_id', '=', organizationId).where('endpoint_id', '=', id).execute();
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Marks the endpoint's pending deliveries failed, so no worker sends them (a worker holding one
 * under lease finds it no longer pending when it records the outcome).
 */
export async function failPendingDeliveries(db: Q, organizationId: string, endpointId: string, reason: string): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, lease_owner: null, lease_until: null })
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertSecret(db: Q, s: WebhookSecretRecord): Promise<void> {
  await db
    .insertInto('webhook_endpoint_secrets')
    .values({
      id: s.id,
      endpoint_id: s.endpointId,
      organization_id: s.organizationId,
      secret_ciphertext: s.secretCiphertext,
      created_at: s.createdAt,
      expires_at: s.expiresAt,
    })
    .execute();
}

/** Ends the overlap of the endpoint's current secret at `expiresAt`: it signs beside the next one until then. */
export async function expireSecrets(db: Q, organizationId: string, endpointId: string, expiresAt: number): Promise<void> {
  await db
    .updateTable('webhook_endpoint_secrets')
    .set({ expires_at: expiresAt })
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
    .execute();
}

/** The newest `limit` secrets that still sign at `now` (current, or expiring later), newest first. */
export async function findLiveSecrets(db: Q, endpointId: string, now: number, limit: number): Promise<WebhookSecretRecord[]> {
  const rows = await db
    .selectFrom('webhook_endpoint_secrets')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    organizationId: row.organization_id,
    secretCiphertext: row.secret_ciphertext,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  }));
}

/**
 * Removes the endpoint's previous secrets: those whose overlap is over, and the one still inside
 * it. A rotation calls it before making the current secret the previous one, so a new rotation ends
 * the oldest overlap and at most two secrets ever sign together (issue 28, item 5).
 */
export async function deletePreviousSecrets(db: Q, organizationId: string, endpointId: string): Promise<void> {
  await db
    .deleteFrom('webhook_endpoint_secrets')
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('expires_at', 'is not', null)
    .execute();
}
