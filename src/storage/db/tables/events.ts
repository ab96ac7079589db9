// Change events and the webhooks that deliver them. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Generated } from 'kysely';
import type { Ms } from './columns.ts';

/** Change events (migration 0010): the transactional outbox and the events feed. */
export interface EventsTable {
  organization_id: string;
  /** the organization's event number, in commit order (see OrganizationsTable.event_seq) */
  seq: number;
  /** evt_…, time-sortable */
  id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  occurred_at: Ms;
  /** JSON object */
  data: string;
}

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  /** JSON array of event types; ["*"] is every type */
  event_types: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** start of the current run of failed attempts; null after a success */
  failing_since: Ms | null;
  created_at: Ms;
  updated_at: Ms;
}

export interface WebhookEndpointSecretsTable {
  id: string;
  endpoint_id: string;
  organization_id: string;
  /** the whsec_ secret, encrypted at rest */
  secret_ciphertext: string;
  created_at: Ms;
  /** null while current; after a rotation, the end of the overlap during which it still signs */
  expires_at: Ms | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  organization_id: string;
  endpoint_id: string;
  /** the webhook-id header */
  event_id: string;
  event_type: string;
  /** the request body of a `webhook.test` delivery; null for an event stored in `events`, whose body is built from it at each attempt */
  payload: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Ms;
  lease_owner: string | null;
  lease_until: Ms | null;
  last_attempt_at: Ms | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: Ms;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  organization_id: string;
  at: Ms;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  /** the first 1 KB of the response body */
  response_body: string | null;
}
