// idempotency_records stores what a write did ('created' or 'updated') instead of how it was
// answered: the HTTP layer turns the outcome into a status and headers on every reply, replays
// included. Records completed before this migration keep their status_code and response_headers
// until their 24-hour replay window ends; the repository reads their outcome from the status code
// (src/storage/db/repositories/service/idempotency.ts). The two columns are no longer written.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_records').addColumn('outcome', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_records').dropColumn('outcome').execute();
}
