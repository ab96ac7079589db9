// The system context (domain/context.ts) of a configured deployment: the one place that turns
// configuration into what the domain verbs read. The app builds it once; tests and benchmarks
// that call verbs directly build theirs here too, so they see the same settings.
import type { Config } from './config.ts';
import type { SystemContext } from './domain/context.ts';
import type { ServerInstance } from './domain/instances/server-instance.ts';
import { ResultCache } from './domain/result-cache.ts';
import type { Db } from './storage/db/connect.ts';
import type { BlobStore } from './storage/blobs/store.ts';
import { isMarkerBoard, type RateLimitStore } from './storage/ratelimit/store.ts';
import { GrantCache } from './domain/auth/grant-cache.ts';
import { OrganizationTurns } from './domain/imports/organization-turns.ts';

export function systemContext(
  config: Config,
  parts: {
    db: Db;
    blobs: BlobStore;
    limiter: RateLimitStore;
    now?: () => number;
    cache?: ResultCache;
    instance?: ServerInstance;
    lookupHost?: (host: string) => Promise<string[]>;
  },
): SystemContext {
  // Grants are kept in memory only where a change can be seen without reading the database: the
  // SQLite file's change stamp (which sees every commit), else markers in Redis. PostgreSQL with
  // the in-memory limiter (one node) reads each request's grant from the database.
  const markers = !parts.db.changeStamp && isMarkerBoard(parts.limiter) ? parts.limiter : undefined;
  return {
    db: parts.db,
    markers,
    grants: (parts.db.changeStamp || markers) && config.grantCacheMaxEntries > 0 ? new GrantCache(config.grantCacheMaxEntries) : undefined,
    region: config.region,
    now: parts.now ?? Date.now,
    cache: parts.cache ?? new ResultCache(config.resultCacheMaxObjectBytes),
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
    importMaxBytes: config.importMaxBytes,
    importJobThresholdBytes: config.importJobThresholdBytes,
    bulkTurns: new OrganizationTurns(),
    webhooks: config.webhooks,
    lookupHost: parts.lookupHost,
  };
}
