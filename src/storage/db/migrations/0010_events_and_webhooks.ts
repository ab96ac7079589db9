// Change events and webhooks (issue 15; docs/decisions/events-and-webhooks.md, "How the parts fit").
//
// events is the transactional outbox and the pull feed at once: every write inserts its events in
// the transaction that makes the change, so an event exists if and only if the change committed.
// Each event takes the next number of its organization's event_seq, in the same statement that
// locks the organization's row (the data-version bump every write already makes): a second write
// of the same organization waits for the first to commit before it can take a number, so within
// an organization the numbers grow in commit order and a feed read after number N never misses a
// smaller number committed later (the trap of ID order versus commit order on PostgreSQL).
//
// webhook_endpoints are an organization's receivers; webhook_endpoint_secrets their signing keys
// (encrypted at rest, since signing needs the key itself; more than one live during a rotation's
// overlap); webhook_deliveries one row per event and endpoint, fanned out in the write's own
// transaction and claimed by the delivery workers of every node with a lease;
// webhook_delivery_attempts the history the console shows.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('event_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pkey', ['organization_id', 'seq'])
    .execute();
  await db.schema.createIndex('events_org_type_seq_idx').on('events').columns(['organization_id', 'type', 'seq']).execute();
  await db.schema.createIndex('events_org_resource_seq_idx').on('events').columns(['organization_id', 'resource_id', 'seq']).execute();
  // retention removes by age
  await db.schema.createIndex('events_occurred_at_idx').on('events').column('occurred_at').execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    // JSON array of event types; ["*"] is every type
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    // start of the current run of failed attempts (null after a success): the endpoint is disabled when it lasts 3 days
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_org_idx').on('webhook_endpoints').columns(['organization_id', 'status']).execute();

  await db.schema
    .createTable('webhook_endpoint_secrets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    // the whsec_ secret, encrypted (AES-256-GCM) under a key of the service
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // null while current; set by a rotation to the end of the overlap, after which it no longer signs
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_endpoint_secrets_endpoint_idx').on('webhook_endpoint_secrets').column('endpoint_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    // the webhook-id header: the same on every attempt and redelivery of one event to one endpoint
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // the request body, as sent
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending | succeeded | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    // the first 1 KB of the response body
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('webhook_delivery_attempts_pkey', ['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_delivery_attempts', 'webhook_deliveries', 'webhook_endpoint_secrets', 'webhook_endpoints', 'events']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.alterTable('organizations').dropColumn('event_seq').execute();
}
