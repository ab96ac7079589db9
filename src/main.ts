// The server process: parse the config once, open the dependencies, migrate, build the app,
// listen, and shut down gracefully on SIGTERM/SIGINT.
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { setHeapGrowth } from './heap-growth.ts';
import { openDb } from './storage/db/connect.ts';
import { migrateToLatest, NewerDatabaseError } from './storage/db/migrate.ts';
import { openRateLimitStore } from './storage/ratelimit/open.ts';
import type { RateLimitStore } from './storage/ratelimit/store.ts';
import { countOrganizations } from './storage/db/repositories/organizations/organizations.ts';
import { deleteExpiredTokens } from './storage/db/repositories/auth/access-tokens.ts';
import { createDemoOrganization } from './demo/create-demo-organization.ts';
import { formatDemoCredentials } from './demo/format-demo-credentials.ts';
import { openBlobStore } from './storage/blobs/open.ts';
import { runCleanup } from './domain/maintenance/cleanup.ts';
import { reapAbandonedUploads } from './domain/maintenance/reap-abandoned-uploads.ts';
import { InstanceHeartbeat } from './domain/instances/server-instance.ts';
import { warmConsoleAssets } from './http/routes/console/pages.ts';
import { createMetrics } from './http/plugins/metrics.ts';
import { buildOpsApp } from './http/ops-server.ts';
import { resolveLogFormat } from './logger.ts';
import { listenErrorMessage } from './listen-error.ts';
import { formatStartBanner, startLogEntry } from './start-banner.ts';
import { startWarnings } from './start-warnings.ts';

/** How long releasing the claims of unfinished requests may add to an expired grace period. */
const RELEASE_ON_EXIT_MS = 2000;

type Config = ReturnType<typeof loadConfig>;
type Db = ReturnType<typeof openDb>;
type App = Awaited<ReturnType<typeof buildApp>>;
type OpsApp = Awaited<ReturnType<typeof buildOpsApp>>;
type BlobStore = ReturnType<typeof openBlobStore>;
/** Reports a dependency's error, at most once per 10 s per kind of error. */
type Report = (what: string, err: Error) => void;

async function main() {
  const config = readConfig();
  setHeapGrowth(config.heapGrowthPercent);

  // Connection errors of idle clients are reported here; requests see them as 503s.
  let report: Report = (what, err) => console.error(`${what}: ${err.message}`);
  const throttled = throttle((what: string, err: Error) => report(what, err), 10_000);
  const deps = await openDependencies(config, throttled);
  if (!deps) return;
  const { db, instance, store, blobs } = deps;
  const metrics = createMetrics();
  const logFormat = resolveLogFormat(config.logFormat, process.stdout.isTTY === true);
  const app = await buildApp(config, { db, rateLimitStore: store, blobs, metrics, logFormat, instance });
  const ops = config.ops.port === undefined ? undefined : await buildOpsApp({ db, store, metrics });
  report = (what, err) => app.log.warn({ err: { message: err.message } }, what);

  const reaper = startHousekeeping(config, db, blobs, app, throttled);
  const shutdown = gracefulShutdown(config, { ...deps, app, ops, reaper });
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Build the console's bundle now rather than on its first visitor's request.
  warmConsoleAssets().catch((err) => app.log.error({ err }, 'console assets failed to build; /console answers 500'));
  await waitForStore(store, 5000, (err) =>
    app.log.warn({ err: { message: err.message } }, 'rate-limit store not reachable yet; /v1 answers 503 until it is'),
  );
  const baseUrl = await listenAll(config, app, ops);
  await announceStart(config, db, app, logFormat, baseUrl);
}

/** The configuration, or exit 78 (EX_CONFIG) with one line saying what is wrong. */
function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/**
 * The database (migrated), this process's heartbeat, the rate-limit store and the blob store; or
 * undefined, the process exiting, when the database was migrated by a newer version.
 */
async function openDependencies(config: Config, throttled: Report) {
  const db = openDb({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    sqlitePath: config.sqlitePath,
    onPoolError: (err) => throttled('database connection error', err),
    checkpointInThread: { onError: (err) => throttled('sqlite checkpoint thread', err) },
    writerInThread: true,
  });
  try {
    await migrateToLatest(db);
  } catch (err) {
    if (!(err instanceof NewerDatabaseError)) throw err;
    process.stderr.write(`${err.message}\n`, () => process.exit(1));
    return undefined;
  }
  // This process's heartbeat: the claims it takes live as long as it does (server-instance.ts).
  const instance = new InstanceHeartbeat({
    db,
    now: Date.now,
    livenessMs: config.claimLivenessMs,
    onError: (err) => throttled('heartbeat failed', err),
  });
  await instance.start();
  const store = openRateLimitStore(config, (err) => throttled('redis connection error', err));
  const blobs = openBlobStore(config);
  return { db, instance, store, blobs };
}

/**
 * The periodic work beside the requests: expired tokens, expired idempotency records and abandoned
 * uploads. Answers the reaper's timer, which the shutdown stops.
 */
function startHousekeeping(config: Config, db: Db, blobs: BlobStore, app: App, throttled: Report): NodeJS.Timeout {
  // Expired tokens are kept a day (so they answer token_stale, not unauthorized), then removed.
  const sweeper = setInterval(() => {
    deleteExpiredTokens(db.kysely, Date.now() - 24 * 3600_000).catch((err) => app.log.warn({ err }, 'token cleanup failed'));
  }, 3600_000);
  sweeper.unref();

  // Expired idempotency records and the blobs of uploads whose process died (found through the
  // pending-uploads journal once their lease is over), at start-up and then periodically.
  const cleanup = () =>
    runCleanup({
      ctx: { db, blobs, now: Date.now },
      input: {
        temporaryAgeMs: config.writeLeaseMs,
        sessionIdleMs: config.console.sessionIdleSec * 1000,
        claimLivenessMs: config.claimLivenessMs,
        eventRetentionDays: config.events.retentionDays,
      },
    })
      .then((r) => {
        if (r.abandonedUploads + r.orphanBlobs + r.temporaryFiles > 0) app.log.info({ cleanup: r }, 'removed abandoned uploads');
      })
      .catch((err) => app.log.warn({ err: { message: (err as Error).message } }, 'clean-up failed; will retry'));
  void cleanup();
  const cleaner = setInterval(cleanup, config.cleanupIntervalMs);
  cleaner.unref();
  // The blobs of a dead node's uploads go within seconds of its death, not at the next clean-up.
  let reaping = false;
  const reaper = setInterval(() => {
    if (reaping) return;
    reaping = true;
    reapAbandonedUploads({ ctx: { db, blobs, now: Date.now }, input: { livenessMs: config.claimLivenessMs } })
      .then((r) => {
        if (r.abandonedUploads > 0) app.log.info({ reaped: r }, 'removed the blobs of abandoned uploads');
      })
      .catch((err) => throttled('abandoned-upload clean-up failed', err as Error))
      .finally(() => (reaping = false));
  }, config.claimLivenessMs);
  reaper.unref();
  return reaper;
}

interface Running {
  db: Db;
  instance: InstanceHeartbeat;
  store: RateLimitStore;
  blobs: BlobStore;
  app: App;
  ops: OpsApp | undefined;
  reaper: NodeJS.Timeout;
}

/** The signal handler: no new connections, the requests in flight finished, then everything closed (once). */
function gracefulShutdown(config: Config, running: Running): (signal: string) => Promise<void> {
  const { db, instance, store, blobs, app, ops, reaper } = running;
  let closing = false;
  return async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    clearInterval(reaper);
    // Requests still running when the grace period ends cannot finish: their claims are released
    // (a retry on another node proceeds at once) before the process exits, within a bounded time.
    const force = setTimeout(() => {
      app.log.error('graceful shutdown timed out; releasing the claims of unfinished requests and exiting');
      const exit = () => process.exit(1);
      setTimeout(exit, RELEASE_ON_EXIT_MS).unref();
      instance
        .stop()
        .then((r) => app.log.warn(r, 'released the claims of unfinished requests'))
        .catch((err) => app.log.error({ err: { message: (err as Error).message } }, 'could not release claims'))
        .finally(exit);
    }, config.shutdownGraceMs);
    force.unref();
    // close() closes only the connections idle at that moment; one whose request was in flight
    // stays keep-alive after its response and would hold close() until the grace period ends.
    const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100);
    closeIdle.unref();
    try {
      await ops?.close();
      await app.close();
      clearInterval(closeIdle);
      await instance.stop().catch((err) => app.log.warn({ err: { message: (err as Error).message } }, 'could not release claims'));
      await store.close();
      await blobs.close();
      await db.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
}

/** Listens on the operations port (when set), then the API's; answers the API's base URL. */
async function listenAll(config: Config, app: App, ops: OpsApp | undefined): Promise<string> {
  if (ops && config.ops.port !== undefined) {
    // Before the API, so that a probe of the API's readiness finds the details already served.
    const where = { host: config.ops.host, port: config.ops.port, variable: 'OPS_PORT', hostVariable: 'OPS_HOST' };
    const address = await listenOrExit(() => ops.listen({ host: config.ops.host, port: config.ops.port! }), where);
    app.log.info({ ops: address }, `Operations listener at ${address} (/metrics, /readyz)`);
  }
  await listenOrExit(() => app.listen({ host: config.host, port: config.port }), {
    host: config.host,
    port: config.port,
    variable: 'PORT',
    hostVariable: 'HOST',
  });
  const { port } = app.server.address() as { port: number };
  return `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
}

/** The demo organization on an empty database, the start-up warnings, then the banner (or its log entry). */
async function announceStart(config: Config, db: Db, app: App, logFormat: ReturnType<typeof resolveLogFormat>, baseUrl: string) {
  // The demo is loaded once the port is ours: were it in use, the demo's secrets, printed only
  // once, would be printed for a server that never ran.
  const organizations = await countOrganizations(db.kysely);
  const demo =
    config.demoOnEmpty && organizations === 0
      ? await createDemoOrganization({ db, region: config.region, now: Date.now }, { progress: process.stdout.isTTY })
      : undefined;
  if (demo) process.stdout.write(formatDemoCredentials(demo, baseUrl));
  const facts = { baseUrl, organizations: organizations + (demo ? 1 : 0), demoPrinted: demo !== undefined };
  for (const warning of startWarnings(config)) app.log.warn(warning);
  if (logFormat === 'pretty') process.stdout.write(formatStartBanner(facts));
  else {
    const entry = startLogEntry(facts);
    app.log.info(entry.fields, entry.message);
  }
}

/** Listens, or exits with one line saying what to change when the port cannot be had. */
async function listenOrExit<T>(listen: () => Promise<T>, where: Parameters<typeof listenErrorMessage>[1]): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const message = listenErrorMessage(err, where);
    if (message === undefined) throw err;
    process.stderr.write(`${message}\n`, () => process.exit(1));
    return await new Promise<never>(() => {});
  }
}

/** Gives a remote store a moment to connect, so the first requests after start-up do not fail. */
async function waitForStore(store: RateLimitStore, ms: number, warn: (err: Error) => void) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await store.ping();
    } catch (err) {
      if (Date.now() > deadline) return warn(err as Error);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Calls `fn` at most once per `ms` per first argument, so a flapping dependency does not flood logs. */
function throttle<A extends [string, ...unknown[]]>(fn: (...args: A) => void, ms: number) {
  const last = new Map<string, number>();
  return (...args: A) => {
    const now = Date.now();
    if ((last.get(args[0]) ?? 0) + ms > now) return;
    last.set(args[0], now);
    fn(...args);
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
