// The one validated configuration object. It is parsed once in main.ts (or by the CLI) from the
// environment and passed down; no module reads process.env at import time.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  DEFAULT_PROGRAM_MAX_BYTES,
  DEFAULT_PROGRAM_MAX_RECORDS,
  DEFAULT_PROGRAM_MAX_YAML_BYTES,
  type ProgramLimits,
} from './shared/program-limits.ts';

/** RESULT_CACHE_MAX_OBJECT_BYTES' default: 64 MiB of estimated heap. */
export const DEFAULT_RESULT_CACHE_MAX_OBJECT_BYTES = 64 * 1024 * 1024;

/** The largest file an import reads unless IMPORT_MAX_BYTES says otherwise: 100 MB, like uploads. */
export const DEFAULT_IMPORT_MAX_BYTES = 100 * 1024 * 1024;

/** A file larger than this is imported as a job (202) unless IMPORT_JOB_THRESHOLD_BYTES says otherwise: 8 MiB. */
export const DEFAULT_IMPORT_JOB_THRESHOLD_BYTES = 8 * 1024 * 1024;

export const REGIONS = ['in', 'us', 'eu', 'au'] as const;

/** Active (not revoked) API credentials an organization may hold unless MAX_ACTIVE_CREDENTIALS_PER_ORG says otherwise. */
export const DEFAULT_MAX_ACTIVE_CREDENTIALS = 100;
/** How long a silent server process keeps its claims unless CLAIM_LIVENESS_MS says otherwise. */
export const DEFAULT_CLAIM_LIVENESS_MS = 3000;
/**
 * The heap may grow to twice what survived V8's last full collection unless HEAP_GROWTH_PERCENT says
 * otherwise (docs/decisions/program-writes.md, "Memory").
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 100;
export type Region = (typeof REGIONS)[number];

/** How log lines are written: `auto` is `pretty` when stdout is a terminal, `json` otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface RateLimitSettings {
  /** requests allowed per window */
  max: number;
  /** window length in seconds (fixed windows) */
  windowSec: number;
}

export interface S3Settings {
  bucket: string;
  /** unset: AWS S3 itself */
  endpoint: string | undefined;
  region: string;
  /** unset (both): the AWS SDK's default credential chain */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface Config {
  host: string;
  port: number;
  /**
   * The operations listener (/metrics, detailed /readyz): loopback by default, like a Prometheus
   * exporter, so the API port never shows them. `port` undefined (OPS_PORT=off): not served.
   */
  ops: { host: string; port: number | undefined };
  region: Region;
  /**
   * The address clients use (PUBLIC_BASE_URL, e.g. `https://compliance.example.com`), named as the
   * server of the OpenAPI document. Unset: the address the API listens on.
   */
  publicBaseUrl: string | undefined;
  /** `postgres://…` selects PostgreSQL; otherwise the embedded SQLite file below is used. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per node (DATABASE_POOL_SIZE) */
  databasePoolSize: number;
  sqlitePath: string;
  /** `redis://…` selects the Redis rate-limit store shared by every node; otherwise in-memory. */
  redisUrl: string | undefined;
  /** prefix of every rate-limit key in Redis, so deployments (or test runs) can share a server */
  redisKeyPrefix: string;
  dataDir: string;
  /** root of the local-disk blob store (uploaded files) when no S3 bucket is configured */
  blobDir: string;
  /** set (S3_BUCKET): uploaded files go to this S3-compatible bucket instead of blobDir */
  s3: S3Settings | undefined;
  logLevel: string;
  /** LOG_FORMAT: `json`, `pretty` (pino-pretty), or `auto` (default): pretty when stdout is a terminal */
  logFormat: LogFormat;
  /** When true and the embedded database is empty, start-up loads the demo organization. */
  demoOnEmpty: boolean;
  rateLimits: {
    api: RateLimitSettings;
    token: RateLimitSettings;
    /** requests from one client address that failed authentication */
    unauthenticated: RateLimitSettings;
    /**
     * malformed requests (answered 400) from one client address without a valid credential or
     * console session (MALFORMED_RATE_LIMIT_MAX, default 20, per MALFORMED_RATE_LIMIT_WINDOW_SEC, default 60)
     */
    malformed: RateLimitSettings;
  };
  tokenTtlSec: number;
  bodyLimitBytes: number;
  /** bytes of uploaded attachments an organization may keep (ATTACHMENT_QUOTA_BYTES) */
  attachmentQuotaBytes: number;
  /** largest scanner file an import reads (IMPORT_MAX_BYTES); refused while it streams */
  importMaxBytes: number;
  /** a scanner file larger than this is imported as a job, answered 202 (IMPORT_JOB_THRESHOLD_BYTES; 0: every import) */
  importJobThresholdBytes: number;
  /** server time-outs, in milliseconds */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownGraceMs: number;
  /**
   * Which proxies' X-Forwarded-For to believe (Fastify's `trustProxy`): false (none), a hop count,
   * or the proxies' addresses/CIDRs. Never `true`, which would believe any client's header.
   */
  trustProxy: false | number | string[];
  /**
   * HMAC key of vulnerability-list cursors (CURSOR_SECRET, at least 32 characters). Unset: a random
   * key is generated once and kept in the database, so every node on that database shares it.
   */
  cursorSecret: string | undefined;
  /**
   * How long an unfinished write may hold its Idempotency-Key (and an upload its pending blobs)
   * before it counts as abandoned by a dead process. Must exceed the longest request: by default
   * the request time-out plus 30 s.
   */
  writeLeaseMs: number;
  /**
   * How long a server process may go without a heartbeat before the writes it holds (claims on
   * Idempotency-Keys, uploads in flight) count as abandoned (CLAIM_LIVENESS_MS, default 3 s); it
   * renews its heartbeat three times per window. See
   * docs/decisions/writes-and-uploads.md, "Abandoned claims (claim liveness)".
   */
  claimLivenessMs: number;
  /** how often a node removes expired idempotency records and orphaned upload blobs */
  cleanupIntervalMs: number;
  /** the developer console at /console */
  console: {
    /** a session ends after this long without a request… */
    sessionIdleSec: number;
    /** …and at the latest this long after sign-in */
    sessionMaxSec: number;
    /** sign-in attempts per email and per client address */
    signInLimit: RateLimitSettings;
  };
  /** how often a node adds its per-credential request counts to the database (usage page) */
  usageFlushIntervalMs: number;
  /** active (not revoked) API credentials an organization may hold; creating one more is refused */
  maxActiveCredentialsPerOrg: number;
  /**
   * How far V8 lets the heap grow past what survived its last full collection before it collects
   * again, in percent (HEAP_GROWTH_PERCENT, default 100: to twice). 0 leaves V8's own factor, up to
   * four times on a large machine. Set once at start (src/heap-growth.ts).
   */
  heapGrowthPercent: number;
  /** bytes of serialized cached answers a node keeps (RESULT_CACHE_MAX_BYTES); least recently used go first */
  resultCacheMaxBytes: number;
  /**
   * estimated bytes of cached results (the objects answers are made from) a node keeps
   * (RESULT_CACHE_MAX_OBJECT_BYTES); least recently used go first
   */
  resultCacheMaxObjectBytes: number;
  /** access tokens' grants a node keeps checked in memory (GRANT_CACHE_MAX_ENTRIES, default 10,000; 0: none) */
  grantCacheMaxEntries: number;
  /** (URL, organization) answers a node holds for warm reads (WARM_READS_MAX_ENTRIES, default 10,000; 0: none) */
  warmReadsMaxEntries: number;
  /**
   * Program documents read by any door (PUT /v1/program, cds, the console): PROGRAM_MAX_BYTES
   * (default 64 MiB, all files of a folder together), PROGRAM_MAX_RECORDS (default 100,000) and
   * PROGRAM_MAX_YAML_BYTES (default 8 MiB, one YAML text read by the server; `cds` reads YAML up
   * to PROGRAM_MAX_BYTES in its own process).
   */
  program: ProgramLimits;
  /**
   * Threads of the worker pool that parses program documents, scanner files and checkers' reports off the event loop (WORKER_THREADS,
   * default every core but one, at least 1; src/workers/pool.ts).
   */
  workerThreads: number;
  /**
   * The nice value of those threads (WORKER_NICE, 0-19, default 0: as the process; Linux only): above 0,
   * on a busy machine the event loop, which answers every organization, is given the cores before the
   * bulk work of one, which then takes longer (docs/decisions/performance.md, "Worker threads yield the cores").
   */
  workerNice: number;
  /** change events (docs/decisions/events-and-webhooks.md, "How the parts fit") */
  events: {
    /** how long events are kept (EVENT_RETENTION_DAYS, default 30); older ones are removed by the cleanup */
    retentionDays: number;
  };
  webhooks: {
    /**
     * WEBHOOKS_ALLOW_PRIVATE_ADDRESSES (default false): accept endpoints on loopback, private,
     * link-local and metadata addresses, for local development only.
     */
    allowPrivateAddresses: boolean;
    /**
     * Key that encrypts endpoints' signing secrets at rest (WEBHOOK_SECRETS_KEY, at least 32
     * characters). Unset: a random key generated once and kept in the database, like the cursor key.
     */
    secretsKey: string | undefined;
    /** how long the previous signing secret keeps signing after a rotation (WEBHOOK_SECRET_OVERLAP_SEC, default 24 h) */
    secretOverlapSec: number;
    /** WEBHOOK_DELIVERY=on|off (default on): whether this node runs delivery workers */
    deliveryEnabled: boolean;
    /** how often an idle worker looks for due deliveries (WEBHOOK_POLL_MS, default 500) */
    pollMs: number;
    /** deliveries a node sends at once (WEBHOOK_CONCURRENCY, default 8) */
    concurrency: number;
    /** how long a claimed delivery stays claimed before another node may take it (WEBHOOK_LEASE_MS, default 30 s) */
    leaseMs: number;
    /** how long a receiver has to answer (WEBHOOK_TIMEOUT_MS, default 10 s): a 2xx within it is success */
    timeoutMs: number;
    /** how long an endpoint may fail before it is disabled and its deliveries given up (WEBHOOK_GIVE_UP_SEC, default 3 days) */
    giveUpSec: number;
    /**
     * Deliveries one organization may have in flight at once, across all nodes
     * (WEBHOOK_ORG_CONCURRENCY, default 4): one tenant's slow or silent receivers cannot hold every
     * slot (docs/security.md).
     */
    orgConcurrency: number;
    /** deliveries one endpoint may have in flight at once, across all nodes (WEBHOOK_ENDPOINT_CONCURRENCY, default 2) */
    endpointConcurrency: number;
    /** test events and redeliveries an organization may send per minute (WEBHOOK_MANUAL_SENDS_PER_MIN, default 30) */
    manualSends: RateLimitSettings;
  };
  /** time moving statuses: stale evidence, policies due for review (docs/program-moves.md, "Time") */
  jobs: {
    /** jobs one node runs at once (JOB_CONCURRENCY, default 1) */
    concurrency: number;
    /** the longest an idle job worker sleeps between looks (JOB_POLL_MS, default 1000); a job queued on this node wakes it at once */
    pollMs: number;
    /**
     * runs a job may start (JOB_MAX_ATTEMPTS, default 3): a job whose node stopped under it (its
     * lease ran out) that many times fails instead of taking down the next node too
     */
    maxAttempts: number;
  };
  time: {
    /** TIME_SCHEDULER=on|off (default on): whether this node runs the time scheduler */
    schedulerEnabled: boolean;
    /** the longest an idle scheduler sleeps between looks (TIME_POLL_MS, default 1000); it wakes at the next due time when sooner */
    pollMs: number;
    /** records of each kind one transaction moves at most (TIME_BATCH_SIZE, default 500) */
    batchSize: number;
  };
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min) throw new ConfigError(`${name} must be at least ${min}`);
  if (value > max) throw new ConfigError(`${name} must be at most ${max}, got ${value}`);
  return value;
}

/** HEAP_GROWTH_PERCENT: 0 (V8's own factor) or 10 to 300 (V8's factor tops out at four times). */
function heapGrowth(env: NodeJS.ProcessEnv): number {
  const value = int(env, 'HEAP_GROWTH_PERCENT', DEFAULT_HEAP_GROWTH_PERCENT, 0);
  if (value !== 0 && (value < 10 || value > 300))
    throw new ConfigError(`HEAP_GROWTH_PERCENT must be 0 (V8's own sizing) or between 10 and 300, got "${env.HEAP_GROWTH_PERCENT}"`);
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return value as T;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

/** PUBLIC_BASE_URL: an http(s) origin with an optional path, without query or fragment; no trailing slash. */
function publicBaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']);
  if (raw === undefined) return undefined;
  const parsed = new URL(raw);
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError('PUBLIC_BASE_URL must be an origin with an optional path, without credentials, query or fragment');
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function secret(env: NodeJS.ProcessEnv, name: string, minLength: number): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters long`);
  return raw;
}

function s3Settings(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const bucket = env.S3_BUCKET;
  if (bucket === undefined || bucket === '') return undefined;
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  return {
    bucket,
    endpoint,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function proxyEntry(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: unset/false, a hop count, or a comma-separated list of proxy addresses/CIDRs. */
function trustProxy(env: NodeJS.ProcessEnv): false | number | string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || ['false', 'no', '0'].includes(raw.toLowerCase())) return false;
  if (['true', 'yes'].includes(raw.toLowerCase())) {
    throw new ConfigError(
      "TRUST_PROXY=true would believe any client's X-Forwarded-For; set the number of proxies in front of the service " +
        '(e.g. TRUST_PROXY=1 behind one load balancer) or their addresses (e.g. TRUST_PROXY=10.0.0.0/8,192.168.1.5)',
    );
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY hop count must be at most 10, got ${hops}`);
    return hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = entries.filter((e) => !proxyEntry(e));
  if (bad.length > 0 || entries.length === 0) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a hop count or a comma-separated list of proxy addresses/CIDRs; not understood: "${bad.join(', ') || raw}"`,
    );
  }
  return entries;
}

/** OPS_PORT's default is this far above PORT: 9090 for the default 3000, so a default install is unchanged. */
export const OPS_PORT_OFFSET = 6090;

/**
 * OPS_PORT: `off`, a port, or (unset) PORT + 6090, so that two nodes on one machine given
 * different PORTs get different operations ports too; PORT=0 (any free port) gives 0 as well.
 */
function opsPort(env: NodeJS.ProcessEnv, port: number): number | undefined {
  if (env.OPS_PORT?.toLowerCase() === 'off') return undefined;
  if (env.OPS_PORT !== undefined && env.OPS_PORT !== '') return int(env, 'OPS_PORT', 0);
  if (port === 0) return 0;
  const derived = port + OPS_PORT_OFFSET;
  if (derived > 65535)
    throw new ConfigError(`PORT ${port} leaves no default operations port (PORT + ${OPS_PORT_OFFSET}); set OPS_PORT (or OPS_PORT=off)`);
  return derived;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const region = (env.REGION ?? 'us').toLowerCase();
  if (!(REGIONS as readonly string[]).includes(region)) {
    throw new ConfigError(`REGION must be one of ${REGIONS.join(', ')}, got "${env.REGION}"`);
  }
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: int(env, 'PORT', 3000),
    ops: { host: env.OPS_HOST || '127.0.0.1', port: opsPort(env, int(env, 'PORT', 3000)) },
    region: region as Region,
    publicBaseUrl: publicBaseUrl(env),
    databaseUrl,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1),
    sqlitePath: path.resolve(env.SQLITE_PATH ?? path.join(dataDir, 'cds.sqlite')),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'cds:rl:',
    dataDir,
    blobDir: path.resolve(env.BLOB_DIR || path.join(dataDir, 'blobs')),
    s3: s3Settings(env),
    logLevel: env.LOG_LEVEL ?? 'info',
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    demoOnEmpty: bool(env, 'DEMO_ON_EMPTY', databaseUrl === undefined),
    rateLimits: {
      api: { max: int(env, 'RATE_LIMIT_MAX', 50, 1), windowSec: int(env, 'RATE_LIMIT_WINDOW_SEC', 60, 1) },
      token: {
        max: int(env, 'TOKEN_RATE_LIMIT_MAX', 10, 1),
        windowSec: int(env, 'TOKEN_RATE_LIMIT_WINDOW_SEC', 60, 1),
      },
      unauthenticated: {
        max: int(env, 'UNAUTHENTICATED_RATE_LIMIT_MAX', 50, 1),
        windowSec: int(env, 'UNAUTHENTICATED_RATE_LIMIT_WINDOW_SEC', 60, 1),
      },
      malformed: {
        max: int(env, 'MALFORMED_RATE_LIMIT_MAX', 20, 1),
        windowSec: int(env, 'MALFORMED_RATE_LIMIT_WINDOW_SEC', 60, 1),
      },
    },
    tokenTtlSec: int(env, 'TOKEN_TTL_SEC', 3600, 1),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    attachmentQuotaBytes: int(env, 'ATTACHMENT_QUOTA_BYTES', 10 * 1024 ** 3, 1),
    importMaxBytes: int(env, 'IMPORT_MAX_BYTES', DEFAULT_IMPORT_MAX_BYTES, 1),
    importJobThresholdBytes: int(env, 'IMPORT_JOB_THRESHOLD_BYTES', DEFAULT_IMPORT_JOB_THRESHOLD_BYTES, 0),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 120_000, 1000),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0),
    trustProxy: trustProxy(env),
    cursorSecret: secret(env, 'CURSOR_SECRET', 32),
    writeLeaseMs: int(env, 'WRITE_LEASE_MS', int(env, 'REQUEST_TIMEOUT_MS', 120_000, 1000) + 30_000, 1000),
    claimLivenessMs: int(env, 'CLAIM_LIVENESS_MS', DEFAULT_CLAIM_LIVENESS_MS, 300),
    cleanupIntervalMs: int(env, 'CLEANUP_INTERVAL_MS', 15 * 60_000, 100),
    console: {
      sessionIdleSec: int(env, 'CONSOLE_SESSION_IDLE_SEC', 3600, 1),
      sessionMaxSec: int(env, 'CONSOLE_SESSION_MAX_SEC', 12 * 3600, 1),
      signInLimit: {
        max: int(env, 'CONSOLE_SIGNIN_RATE_LIMIT_MAX', 10, 1),
        windowSec: int(env, 'CONSOLE_SIGNIN_RATE_LIMIT_WINDOW_SEC', 900, 1),
      },
    },
    usageFlushIntervalMs: int(env, 'USAGE_FLUSH_INTERVAL_MS', 10_000, 100),
    maxActiveCredentialsPerOrg: int(env, 'MAX_ACTIVE_CREDENTIALS_PER_ORG', DEFAULT_MAX_ACTIVE_CREDENTIALS, 1),
    heapGrowthPercent: heapGrowth(env),
    resultCacheMaxBytes: int(env, 'RESULT_CACHE_MAX_BYTES', 64 * 1024 * 1024, 0),
    resultCacheMaxObjectBytes: int(env, 'RESULT_CACHE_MAX_OBJECT_BYTES', DEFAULT_RESULT_CACHE_MAX_OBJECT_BYTES, 0),
    grantCacheMaxEntries: int(env, 'GRANT_CACHE_MAX_ENTRIES', 10_000, 0),
    warmReadsMaxEntries: int(env, 'WARM_READS_MAX_ENTRIES', 10_000, 0),
    program: {
      maxBytes: int(env, 'PROGRAM_MAX_BYTES', DEFAULT_PROGRAM_MAX_BYTES, 1024),
      maxRecords: int(env, 'PROGRAM_MAX_RECORDS', DEFAULT_PROGRAM_MAX_RECORDS, 1),
      maxYamlBytes: int(env, 'PROGRAM_MAX_YAML_BYTES', DEFAULT_PROGRAM_MAX_YAML_BYTES, 1024),
    },
    // every core but the event loop's, at least one (src/workers/pool.ts)
    workerThreads: int(env, 'WORKER_THREADS', Math.max(1, availableParallelism() - 1), 1),
    workerNice: int(env, 'WORKER_NICE', 0, 0, 19),
    events: { retentionDays: int(env, 'EVENT_RETENTION_DAYS', 30, 1) },
    webhooks: {
      allowPrivateAddresses: bool(env, 'WEBHOOKS_ALLOW_PRIVATE_ADDRESSES', false),
      secretsKey: secret(env, 'WEBHOOK_SECRETS_KEY', 32),
      secretOverlapSec: int(env, 'WEBHOOK_SECRET_OVERLAP_SEC', 24 * 3600, 0),
      deliveryEnabled: oneOf(env, 'WEBHOOK_DELIVERY', ['on', 'off'] as const, 'on') === 'on',
      pollMs: int(env, 'WEBHOOK_POLL_MS', 500, 10),
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1),
      leaseMs: int(env, 'WEBHOOK_LEASE_MS', 30_000, 1000),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
      giveUpSec: int(env, 'WEBHOOK_GIVE_UP_SEC', 3 * 24 * 3600, 1),
      orgConcurrency: int(env, 'WEBHOOK_ORG_CONCURRENCY', 4, 1),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1),
      manualSends: { max: int(env, 'WEBHOOK_MANUAL_SENDS_PER_MIN', 30, 1), windowSec: 60 },
    },
    jobs: {
      concurrency: int(env, 'JOB_CONCURRENCY', 1, 1),
      pollMs: int(env, 'JOB_POLL_MS', 1000, 10),
      maxAttempts: int(env, 'JOB_MAX_ATTEMPTS', 3, 1),
    },
    time: {
      schedulerEnabled: oneOf(env, 'TIME_SCHEDULER', ['on', 'off'] as const, 'on') === 'on',
      pollMs: int(env, 'TIME_POLL_MS', 1000, 10),
      batchSize: int(env, 'TIME_BATCH_SIZE', 500, 1),
    },
  };
}
