// Time moves statuses (issue 26, "Time moves it too"; docs/decisions/program-writes.md, "Time"):
// an evidence record whose newest attachment's period has ended without a new upload becomes
// `needs_attention`, and a published policy whose `next_review_date` has passed `needs_review`.
// The scheduler of every node finds that due work through two partial indexes, so a look costs an
// index probe whatever the size of the data:
// - `evidence.stale_at`: the first millisecond after the latest attachment period of the record
//   (null without a periodic recurrence or without a dated attachment), kept by the writes that
//   add attachments or change the recurrence (repositories/service/time-due.ts, refreshStaleAt); indexed
//   only for the statuses time moves (`uploaded`, `pending_approval`);
// - `policies.next_review_date`: the spec's own field, indexed only for `published` policies.
// Existing evidence gets its `stale_at` from the attachments it already has.
import { sql, type Kysely } from 'kysely';

/** The statuses time moves, written as literals: SQLite uses a partial index only when the query repeats its predicate as is. */
export const EVIDENCE_DUE_PREDICATE = sql<boolean>`status in ('uploaded', 'pending_approval')`;
export const POLICY_DUE_PREDICATE = sql<boolean>`status = 'published'`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('evidence').addColumn('stale_at', 'bigint').execute();
  await sql`update evidence set stale_at = (
      select max(a.period_end) + 1 from attachments a
      where a.evidence_id = evidence.id and a.period_end is not null
    )
    where recurrence in ('monthly', 'quarterly', 'semi_annually', 'yearly')`.execute(db);
  await db.schema
    .createIndex('evidence_stale_due_idx')
    .on('evidence')
    .columns(['stale_at', 'organization_id'])
    .where(EVIDENCE_DUE_PREDICATE)
    .execute();
  await db.schema
    .createIndex('policies_review_due_idx')
    .on('policies')
    .columns(['next_review_date', 'organization_id'])
    .where(POLICY_DUE_PREDICATE)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('policies_review_due_idx').ifExists().execute();
  await db.schema.dropIndex('evidence_stale_due_idx').ifExists().execute();
  await db.schema.alterTable('evidence').dropColumn('stale_at').execute();
}
