// buildApp(config, deps) → a ready-to-listen Fastify instance. No side effects at import; tests
// build apps with their own config and dependencies.
import http from 'node:http';
import Fastify, { LogController, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Config } from './config.ts';
import { systemContext } from './system-context.ts';
import type { ResultCache } from './domain/result-cache.ts';
import type { Db } from './storage/db/connect.ts';
import type { RateLimitStore } from './storage/ratelimit/store.ts';
import type { BlobStore } from './storage/blobs/store.ts';
import type { ServerInstance } from './domain/instances/server-instance.ts';
import { openBlobStore } from './storage/blobs/open.ts';
import { sendWebhook } from './storage/webhook-http/node-http.ts';
import { validatorCompiler } from './http/validation.ts';
import { answerClientError, registerErrorHandler, sendFrameworkError } from './http/plugins/error-handler.ts';
import { registerResponseHeaders } from './http/plugins/response-headers.ts';
import { registerUnreadBody, unreadBodyDrainBytes } from './http/plugins/unread-body.ts';
import { newRequestId } from './http/request-id.ts';
import { registerAuth, tokenAuthenticator } from './http/plugins/auth.ts';
import { WarmReads } from './http/warm-reads.ts';
import { trustProxyOption } from './http/trust-proxy.ts';
import { registerConsoleSession } from './http/plugins/console-session.ts';
import { UsageRecorder } from './domain/console/usage-recorder.ts';
import { registerJsonBody } from './http/json-body.ts';
import { registerMalformedLimit } from './http/plugins/malformed-limit.ts';
import { registerNulGuard } from './http/plugins/nul-guard.ts';
import {
  createMetrics,
  OUTBOX_COUNT_CAP,
  registerMetrics,
  TIME_SCHEDULER,
  WEBHOOK_SCHEDULER,
  type Metrics,
} from './http/plugins/metrics.ts';
import { webhookBacklog } from './storage/db/repositories/events/webhook-backlog.ts';
import { ErrorBody, OAuthErrorBody } from './http/schemas/common.ts';
import { registerRoutes } from './http/routes/index.ts';
import { AnswerBytes } from './http/answer-bytes.ts';
import { listeningBaseUrl, openApiOptions, servedDocument, decorateDocument } from './http/openapi/document.ts';
import { loggerOptions } from './logger.ts';
import { DeliveryWorker, type WorkerOptions } from './domain/webhooks/worker.ts';
import { openDeliveryAnnouncements } from './storage/db/delivery-announcements.ts';
import type { DeliveryContext } from './domain/webhooks/deliver.ts';
import { liveSigningSecrets } from './domain/webhooks/signing-secrets.ts';
import { forbiddenAddressReason } from './domain/webhooks/address-policy.ts';
import type { SystemContext } from './domain/context.ts';
import { TimeWorker, type TimeWorkerOptions } from './domain/time/worker.ts';
import { JobWorker, type JobWorkerOptions } from './domain/jobs/worker.ts';
import { WorkerPool } from './workers/pool.ts';
import { scannerFormatsInPool } from './workers/scan-in-pool.ts';
import { checkFormatsInPool } from './workers/check-in-pool.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** answer errors with the token endpoint's body ({ error, error_description }) */
    oauthErrors?: boolean;
    /** the body type the route takes, named when another arrives (default application/json) */
    accepts?: string;
    /**
     * an address over the malformed-request limit is refused only the requests that would answer
     * 400, once their (small, bounded) body is read, not all of them before (src/http/plugins/malformed-limit.ts)
     */
    malformedLimitAfterBody?: boolean;
  }
}

export interface AppDeps {
  db: Db;
  rateLimitStore: RateLimitStore;
  /** where uploads go; default: the store the config names (closed with the app only then) */
  blobs?: BlobStore;
  now?: () => number;
  /** false silences logs (tests); default: JSON logs at config.logLevel */
  logger?: boolean;
  /** `pretty`: pino-pretty's readable lines (main.ts, at a terminal); default `json` */
  logFormat?: 'json' | 'pretty';
  /** the counters the operations listener serves (src/http/ops-server.ts); default: new ones */
  metrics?: Metrics;
  /** the result cache (tests compare with a NoResultCache); default: a new ResultCache */
  cache?: ResultCache;
  /** the server process's heartbeat (main.ts), whose liveness bounds its claims; absent: the write lease alone does */
  instance?: ServerInstance;
  /** resolves webhook endpoints' host names (tests make a name resolve to a chosen address); default: the system resolver */
  lookupHost?: (host: string) => Promise<string[]>;
  /**
   * Parts of the webhook delivery worker a test replaces: name resolution (a name pointed at
   * loopback), and a listener of finished attempts. The worker runs when WEBHOOK_DELIVERY is on.
   */
  webhookDelivery?: Pick<DeliveryContext, 'lookupHost'> & Pick<WorkerOptions, 'onAttempt'>;
  /** false: every request goes through Fastify (tests compare with it); default: warm reads are answered before routing */
  warmReads?: boolean;
  /** a listener of the time scheduler's batches (tests, benchmarks); the scheduler runs when TIME_SCHEDULER is on */
  time?: Pick<TimeWorkerOptions, 'onBatch'>;
  /** a listener of the jobs this node runs to their end (tests) */
  jobs?: Pick<JobWorkerOptions, 'onEnd'>;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  // Set once the app's parts exist; until then (and with warmReads: false) Fastify answers everything.
  let warm: WarmReads | undefined;
  const app = Fastify({
    serverFactory: (fastify, options) =>
      createServer(options as FastifyHttpOptions<http.Server>, (req, res) => (warm ? warm.handle(req, res, fastify) : fastify(req, res))),
    logger: deps.logger === false ? false : loggerOptions(config.logLevel, deps.logFormat),
    genReqId: newRequestId,
    requestIdHeader: false, // never trust a client-chosen ID: the spec promises a unique one
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: config.bodyLimitBytes,
    // The router's own cap on a path parameter (100 by default) would answer "invalid URL"; the
    // request line is already bounded by Node's header size limit, so the route schemas' maxLength
    // decides instead and the 400 names the parameter.
    routerOptions: { maxParamLength: 16 * 1024 },
    requestTimeout: config.requestTimeoutMs,
    http: serverTimeouts(config.requestTimeoutMs),
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: answerClientError,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Bodies are JSON only (plus multipart where a route registers it): no text/plain.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);

  const blobs = deps.blobs ?? openBlobStore(config);
  if (!deps.blobs) app.addHook('onClose', async () => blobs.close());
  const system = systemContext(config, {
    db: deps.db,
    blobs,
    limiter: deps.rateLimitStore,
    now: deps.now,
    cache: deps.cache,
    instance: deps.instance,
    lookupHost: deps.lookupHost,
  });
  const metrics = deps.metrics ?? createMetrics();
  const answers = new AnswerBytes(config.resultCacheMaxBytes, (held) => metrics.answerCacheBytes.set(held));
  system.cache.reportBytesTo((held) => metrics.resultCacheBytes.set(held));
  const usage = new UsageRecorder(deps.db, system.now);
  const usageTimer = setInterval(() => void usage.flush(), config.usageFlushIntervalMs);
  usageTimer.unref();
  // The last counts are written when the app closes; the owner of `deps.db` closes it after the app.
  app.addHook('onClose', async () => {
    clearInterval(usageTimer);
    await usage.flush();
  });

  if (config.webhooks.deliveryEnabled) startDeliveryWorker(app, config, deps, system, metrics);
  if (config.time.schedulerEnabled) startTimeWorker(app, config, deps, system, metrics);
  // Threads start with the first task and end with the app (after the requests in flight).
  const workers = new WorkerPool(config.workerThreads, { nice: config.workerNice });
  startJobWorker(app, config, deps, system, workers);
  metrics.watchWebhookOutbox(() => webhookBacklog(deps.db.kysely, system.now(), OUTBOX_COUNT_CAP), system.now);

  registerResponseHeaders(app);
  registerMetrics(app, metrics);
  registerErrorHandler(app, (err) => metrics.dependencyErrors.inc({ dependency: err.dependency }));
  registerUnreadBody(app, unreadBodyDrainBytes(config));
  registerAuth(app, {
    config,
    system,
    onRejected: (limiter) => metrics.rateLimitRejections.inc({ limiter }),
    usage,
  });
  registerConsoleSession(app, { system });
  registerMalformedLimit(app, { config, system, onRejected: (limiter) => metrics.rateLimitRejections.inc({ limiter }) });

  registerNulGuard(app);
  app.addSchema(ErrorBody);
  app.addSchema(OAuthErrorBody);
  await app.register(swagger, {
    openapi: openApiOptions(),
    transformObject: decorateDocument,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (json.$id as string) || `def-${i}` },
  });

  if (deps.warmReads !== false && config.warmReadsMaxEntries > 0) {
    warm = new WarmReads({
      authenticate: tokenAuthenticator(config, system),
      answers,
      metrics,
      usage,
      log: app.log,
      clientAddressIsPeer: !config.trustProxy,
      maxHeld: config.warmReadsMaxEntries,
    });
    // Closing, Fastify answers with Connection: close; nothing is answered before it from then on.
    const closing = warm;
    app.addHook('preClose', (done) => {
      closing.close();
      done();
    });
  }
  metrics.watchCacheEntries(() => ({ grants: system.grants?.size ?? 0, warm_reads: warm?.size ?? 0 }));
  app.addHook('onClose', async () => workers.close());
  registerRoutes(app, { config, system, metrics, usage, answers, warm, workers });
  app.get('/openapi.json', { schema: { hide: true } }, async () =>
    servedDocument(app.swagger(), config.publicBaseUrl ?? listeningBaseUrl(app.server.address(), config)),
  );
  return app;
}

/**
 * The webhook delivery worker of this node, started when the app is ready. It stops claiming as
 * soon as the app begins to close, and the close waits for its attempts in flight for most of
 * the shutdown grace, then gives their leases back (src/main.ts exits at the end of the grace).
 */
function startDeliveryWorker(app: FastifyInstance, config: Config, deps: AppDeps, system: SystemContext, metrics: Metrics) {
  const options = deps.webhookDelivery;
  const worker = new DeliveryWorker({
    ctx: {
      db: deps.db,
      now: system.now,
      webhooks: config.webhooks,
      signingSecrets: (endpointId, now) => liveSigningSecrets(system, endpointId, now),
      refuseAddress: config.webhooks.allowPrivateAddresses ? () => undefined : forbiddenAddressReason,
      lookupHost: options?.lookupHost ?? deps.lookupHost,
      send: sendWebhook,
    },
    instance: deps.instance,
    onAttempt: (delivery, result, startedAt) => {
      metrics.webhookDeliveries.inc({ outcome: result });
      metrics.schedulerLag.observe({ scheduler: WEBHOOK_SCHEDULER }, Math.max(0, startedAt - delivery.next_attempt_at) / 1000);
      options?.onAttempt?.(delivery, result, startedAt);
    },
    onError: (err) => app.log.warn({ err: { message: err.message } }, 'webhook delivery: database error; will retry'),
  });
  // commits of every node (and of cds) that enqueued deliveries wake this worker (PostgreSQL)
  const announcements = openDeliveryAnnouncements(config.databaseUrl, (err) =>
    app.log.warn({ err: { message: err.message } }, 'webhook delivery: announcement connection lost; polling until it is back'),
  );
  let stopped: Promise<unknown> | undefined;
  app.addHook('onReady', async () => {
    worker.start();
    announcements.start(() => worker.poke());
  });
  app.addHook('preClose', async () => {
    void announcements.close();
    stopped = worker.stop(Math.max(0, config.shutdownGraceMs - 1000)).then(({ released }) => {
      if (released > 0) app.log.warn({ released }, 'webhook delivery: gave back the leases of unfinished attempts');
    });
  });
  app.addHook('onClose', async () => {
    await announcements.close();
    await (stopped ?? worker.stop(0));
  });
}

/**
 * The time scheduler of this node (src/domain/time/worker.ts), started when the app is ready and
 * stopped as it begins to close (a batch in progress is one short transaction: it finishes).
 */
function startTimeWorker(app: FastifyInstance, config: Config, deps: AppDeps, system: SystemContext, metrics: Metrics) {
  const worker = new TimeWorker({
    ctx: system,
    settings: config.time,
    onBatch: (organizationId, result, at) => {
      for (const due of result.dueTimes) metrics.schedulerLag.observe({ scheduler: TIME_SCHEDULER }, Math.max(0, at - due) / 1000);
      app.log.info(
        { organizationId, evidence: result.evidence, policies: result.policies },
        'time: stale evidence moved to needs_attention, policies due moved to needs_review',
      );
      deps.time?.onBatch?.(organizationId, result, at);
    },
    onError: (err) => app.log.warn({ err: { message: err.message } }, 'time scheduler: database error; will retry'),
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => {
    await worker.stop();
  });
}

/**
 * The job worker of this node (src/domain/jobs/worker.ts): started when the app is ready; as it
 * closes it stops claiming, lets its jobs run for most of the shutdown grace, then queues those
 * still running again for another node.
 */
function startJobWorker(app: FastifyInstance, config: Config, deps: AppDeps, system: SystemContext, workers: WorkerPool) {
  const worker = new JobWorker({
    ctx: system,
    // a job's file is parsed in the worker threads, as the door's is
    scannerFormats: scannerFormatsInPool(workers),
    checkFormats: checkFormatsInPool(workers),
    settings: { ...config.jobs, leaseMs: config.writeLeaseMs },
    onEnd: (job, ending) => {
      app.log.info({ jobId: job.id, organizationId: job.organization_id, kind: job.kind, ending }, 'job ended');
      deps.jobs?.onEnd?.(job, ending);
    },
    // a claim or a database failure (the job runs again when its lease ends), or an unexpected
    // error of a job (stored as its internal_error)
    onError: (err) => app.log.warn({ err: { message: err.message } }, 'jobs: a claim or a job failed'),
  });
  let stopped: Promise<void> | undefined;
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => {
    stopped = worker.stop(Math.max(0, config.shutdownGraceMs - 1000));
  });
  app.addHook('onClose', async () => {
    await (stopped ?? worker.stop(0));
  });
}

/**
 * The HTTP server Fastify would make from its options (keep-alive, request and connection
 * time-outs, Node's options), with `listener` in front of Fastify's own.
 */
function createServer(options: FastifyHttpOptions<http.Server>, listener: http.RequestListener): http.Server {
  const server = http.createServer(options.http ?? {}, listener);
  server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
  server.requestTimeout = options.requestTimeout ?? 0;
  server.setTimeout(options.connectionTimeout ?? 0);
  if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}

/**
 * Node's server options that must agree with the request time-out. Node checks both time-outs every
 * `connectionsCheckingInterval` (30 s by default) and, when the headers time-out (60 s by default)
 * exceeds the request time-out, swaps them: a REQUEST_TIMEOUT_MS of 3 s then cut slow headers at
 * 3 s but slow bodies only at 60-90 s. The headers get at most the request's time, and the check
 * runs often enough for a short time-out to be kept to within about a tenth of it.
 */
export function serverTimeouts(requestTimeoutMs: number): { headersTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.round(requestTimeoutMs / 10))),
  };
}
