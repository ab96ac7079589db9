// The system context (domain/context.ts) of a configured deployment: the one place that turns
// configuration into what the domain verbs read. The app builds it once; tests and benchmarks
// that call verbs directly build theirs here too, so they see the same settings.
import type { Config } from './config.ts';
import type { SystemContext } from './domain/context.ts';
import type { ServerInstance } from './domain/instances/server-instance.ts';
import { ResultCache } from './domain/result-cache.ts';
import type { Db } from './storage/db/connect.ts';
import type { BlobStore } from './storage/blobs/store.ts';
import type { RateLimitStore } from './storage/ratelimit/store.ts';

export function systemContext(
  config: Config,
  parts: { db: Db; blobs: BlobStore; limiter: RateLimitStore; now?: () => number; cache?: ResultCache; instance?: ServerInstance },
): SystemContext {
  return {
    db: parts.db,
    region: config.region,
    now: parts.now ?? Date.now,
    cache: parts.cache ?? new ResultCache(),
    blobs: parts.blobs,
    limiter: parts.limiter,
    cursorSecret: config.cursorSecret,
    tokenTtlSec: config.tokenTtlSec,
    session: {
      idleMs: config.console.sessionIdleSec * 1000,
      maxMs: config.console.sessionMaxSec * 1000,
      signInLimit: config.console.signInLimit,
    },
    writeLeaseMs: config.writeLeaseMs,
    instance: parts.instance,
    maxActiveCredentialsPerOrg: config.maxActiveCredentialsPerOrg,
    attachmentQuotaBytes: config.attachmentQuotaBytes,
  };
}
