// A claim lives only as long as the process holding it (docs/decisions/writes-and-uploads.md, "Abandoned claims (claim liveness)").
//
// server_instances has one row per running server process: a random ID chosen at start-up, the
// host and process ID it runs as (on SQLite, where every process shares one machine, start-up can
// tell at once that a previous process is gone), and the time of its last heartbeat, renewed
// three times per liveness window (CLAIM_LIVENESS_MS). A process that exits cleanly deletes its row.
//
// idempotency_records and pending_uploads gain the ID of the instance that wrote them: an
// in-progress claim or pending upload whose instance has no fresh heartbeat (or no row) is
// abandoned at once, without waiting for its lease. Rows written before this migration (or by a
// node still running the version before it) have no instance and keep the lease alone.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('idempotency_records').addColumn('instance_id', 'text').execute();
  await db.schema.alterTable('pending_uploads').addColumn('instance_id', 'text').execute();
  // Shutdown releases an instance's claims by this column.
  await db.schema.createIndex('idempotency_records_instance_id_idx').on('idempotency_records').column('instance_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('idempotency_records_instance_id_idx').ifExists().execute();
  await db.schema.alterTable('pending_uploads').dropColumn('instance_id').execute();
  await db.schema.alterTable('idempotency_records').dropColumn('instance_id').execute();
  await db.schema.dropTable('server_instances').ifExists().execute();
}
