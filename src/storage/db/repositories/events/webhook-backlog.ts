// The webhook outbox as metrics see it (http/plugins/metrics.ts): how many deliveries are pending
// and since when the oldest due one waits unclaimed. Both read the (status, next_attempt_at) index
// only: the count stops at `cap` rows, the oldest is the index's first due entry.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

export interface WebhookBacklog {
  /** pending deliveries (due or waiting for a retry), at most `cap` */
  pending: number;
  /** next_attempt_at of the oldest due delivery no worker holds; null when none is due */
  oldestDueAt: number | null;
}

export async function webhookBacklog(db: Kysely<Database>, now: number, cap: number): Promise<WebhookBacklog> {
  const pending = await db
    .selectFrom((eb) =>
      eb.selectFrom('webhook_deliveries').select(sql<number>`1`.as('one')).where('status', '=', 'pending').limit(cap).as('p'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const oldest = await db
    .selectFrom('webhook_deliveries')
    .select('next_attempt_at')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .limit(1)
    .executeTakeFirst();
  return { pending: Number(pending.n), oldestDueAt: oldest ? Number(oldest.next_attempt_at) : null };
}
