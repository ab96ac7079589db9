// Requests per credential and hour, for the console's usage page. Counting happens on every API
// request, so it must not cost a database write each time: each node keeps its counts in memory
// and adds them to the hourly rows every few seconds (and when it shuts down). A crash loses at
// most one interval of counts; these are statistics, not records anyone acknowledged.
import type { Db } from '../../storage/db/connect.ts';
import { upsertUsage, type UsageDelta } from '../../storage/db/repositories/auth/credential-usage.ts';

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
