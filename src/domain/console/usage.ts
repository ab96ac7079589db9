// Requests per credential and hour, for the console's usage page. Counting happens on every API
// request, so it must not cost a database write each time: each node keeps its counts in memory
// and adds them to the hourly rows every few seconds (and when it shuts down). A crash loses at
// most one interval of counts; these are statistics, not records anyone acknowledged.
import type { AdminContext } from '../context.ts';
import type { Usage } from './schema.ts';
import type { Db } from '../../storage/db/connect.ts';
import { upsertUsage, listUsage, type UsageDelta } from '../../storage/db/repositories/credential-usage.ts';
import { listCredentials } from '../../storage/db/repositories/credentials.ts';

export const USAGE_BUCKET_MS = 3_600_000;
export const USAGE_BUCKETS = 24;

export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly db: Db;
  private readonly now: () => number;

  constructor(db: Db, now: () => number) {
    this.db = db;
    this.now = now;
  }

  count(credentialId: string, organizationId: string, rateLimited: boolean): void {
    const now = this.now();
    const bucketStart = now - (now % USAGE_BUCKET_MS);
    const key = `${credentialId}|${bucketStart}`;
    let delta = this.pending.get(key);
    if (!delta) {
      delta = { credentialId, organizationId, bucketStart, requests: 0, rateLimited: 0 };
      this.pending.set(key, delta);
    }
    delta.requests += 1;
    if (rateLimited) delta.rateLimited += 1;
  }

  /** Writes the counts gathered so far; flushes run one at a time, in order. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await upsertUsage(this.db.kysely, batch);
    } catch {
      // Keep the counts for the next attempt (the database may be briefly down); the transaction
      // wrote none of them.
      for (const d of batch) {
        const key = `${d.credentialId}|${d.bucketStart}`;
        const later = this.pending.get(key);
        if (later) {
          later.requests += d.requests;
          later.rateLimited += d.rateLimited;
        } else this.pending.set(key, d);
      }
    }
  }
}

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
