// Deliveries stop keeping their own copy of the event (issue 28, item 4): `payload` becomes
// nullable, and is null for every delivery of an event stored in `events`; the body is built from
// the event row at each attempt (domain/webhooks/deliver.ts), so an event removed by its retention
// can no longer be sent, and what the organization's plan hides at send time is left out. Only a
// `webhook.test` delivery, whose event is never stored, keeps its (tiny) body here.
//
// Two indexes: deliveries by age, for the clean-up that removes them (and their attempts) with
// their events; and the leased rows, so the fair claim counts what each organization and endpoint
// has in flight without reading the whole backlog (repositories/events/webhook-deliveries.ts).
import { type Kysely, PostgresAdapter, sql } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

const TEST_EVENT_TYPE = 'webhook.test';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table webhook_deliveries alter column payload drop not null`.execute(db);
  } else {
    // SQLite cannot drop a NOT NULL: the table is made again with the same columns and indexes.
    await sql`create table webhook_deliveries_0013 (
      id text primary key,
      organization_id text not null,
      endpoint_id text not null,
      event_id text not null,
      event_type text not null,
      payload text,
      status text not null,
      attempts integer not null default 0,
      next_attempt_at bigint not null,
      lease_owner text,
      lease_until bigint,
      last_attempt_at bigint,
      last_status_code integer,
      last_latency_ms integer,
      last_error text,
      created_at bigint not null
    )`.execute(db);
    await sql`insert into webhook_deliveries_0013 select id, organization_id, endpoint_id, event_id, event_type, payload, status,
      attempts, next_attempt_at, lease_owner, lease_until, last_attempt_at, last_status_code, last_latency_ms, last_error, created_at
      from webhook_deliveries`.execute(db);
    await sql`drop table webhook_deliveries`.execute(db);
    await sql`alter table webhook_deliveries_0013 rename to webhook_deliveries`.execute(db);
    await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema
      .createIndex('webhook_deliveries_endpoint_idx')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'created_at'])
      .execute();
  }
  await db.updateTable('webhook_deliveries').set({ payload: null }).where('event_type', '<>', TEST_EVENT_TYPE).execute();
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').column('created_at').execute();
  await db.schema.createIndex('webhook_deliveries_leased_idx').on('webhook_deliveries').columns(['status', 'lease_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_leased_idx').ifExists().execute();
  await db.schema.dropIndex('webhook_deliveries_created_idx').ifExists().execute();
}
