// The console's usage page: the last day of requests per credential, in hourly buckets, as the
// nodes' UsageRecorders (usage-recorder.ts) have stored them.
import type { AdminContext } from '../context.ts';
import type { Usage } from './schema.ts';
import { listUsage } from '../../storage/db/repositories/auth/credential-usage.ts';
import { listCredentials } from '../../storage/db/repositories/auth/credentials.ts';
import { USAGE_BUCKET_MS, USAGE_BUCKETS } from './usage-recorder.ts';

/**
 * The last 24 hourly buckets (the current hour last) of every credential of the actor's
 * organization, as stored: flush the process's UsageRecorder first to include its pending counts.
 */
export async function usageReport({ ctx }: { ctx: AdminContext }): Promise<Usage> {
  const organizationId = ctx.actor.organizationId;
  const now = ctx.now();
  const current = now - (now % USAGE_BUCKET_MS);
  const from = current - (USAGE_BUCKETS - 1) * USAGE_BUCKET_MS;
  const [creds, rows] = await Promise.all([listCredentials(ctx.db.kysely, organizationId), listUsage(ctx.db.kysely, organizationId, from)]);
  const byKey = new Map(rows.map((r) => [`${r.credentialId}|${r.bucketStart}`, r]));
  return {
    from,
    to: now,
    bucketMs: USAGE_BUCKET_MS,
    credentials: creds
      .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id))
      .map((c) => {
        const buckets = Array.from({ length: USAGE_BUCKETS }, (_, i) => {
          const start = from + i * USAGE_BUCKET_MS;
          const row = byKey.get(`${c.id}|${start}`);
          return { start, requests: row?.requests ?? 0, rateLimited: row?.rateLimited ?? 0 };
        });
        return {
          credentialId: c.id,
          name: c.name,
          clientId: c.clientId,
          status: c.revokedAt === null ? ('active' as const) : ('revoked' as const),
          totals: {
            requests: buckets.reduce((n, b) => n + b.requests, 0),
            rateLimited: buckets.reduce((n, b) => n + b.rateLimited, 0),
          },
          buckets,
        };
      }),
  };
}
