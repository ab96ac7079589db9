import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface UsageDelta {
  credentialId: string;
  organizationId: string;
  bucketStart: number;
  requests: number;
  rateLimited: number;
}

export interface UsageRow {
  credentialId: string;
  bucketStart: number;
  requests: number;
  rateLimited: number;
}

/** Adds counts to their hourly rows; each node adds its own, so the rows hold the sum of all. */
export async function upsertUsage(db: Q, deltas: UsageDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await db.transaction().execute(async (tx) => {
    for (const d of deltas) {
      await tx
        .insertInto('credential_usage')
        .values({
          credential_id: d.credentialId,
          bucket_start: d.bucketStart,
          organization_id: d.organizationId,
          requests: d.requests,
          rate_limited: d.rateLimited,
        })
        .onConflict((oc) =>
          oc.columns(['credential_id', 'bucket_start']).doUpdateSet((eb) => ({
            requests: eb('credential_usage.requests', '+', eb.ref('excluded.requests')),
            rate_limited: eb('credential_usage.rate_limited', '+', eb.ref('excluded.rate_limited')),
          })),
        )
        .execute();
    }
  });
}

export async function listUsage(db: Q, organizationId: string, fromBucket: number): Promise<UsageRow[]> {
  const rows = await db
    .selectFrom('credential_usage')
    .select(['credential_id', 'bucket_start', 'requests', 'rate_limited'])
    .where('organization_id', '=', organizationId)
    .where('bucket_start', '>=', fromBucket)
    .execute();
  return rows.map((r) => ({
    credentialId: r.credential_id,
    bucketStart: Number(r.bucket_start),
    requests: Number(r.requests),
    rateLimited: Number(r.rate_limited),
  }));
}

export async function deleteUsageBefore(db: Q, bucketStart: number): Promise<number> {
  const result = await db.deleteFrom('credential_usage').where('bucket_start', '<', bucketStart).executeTakeFirst();
  return Number(result.numDeletedRows);
}
