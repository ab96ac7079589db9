// Prometheus metrics: requests by route and status, latency histograms, rate-limit rejections,
// and the work done in the background (webhook deliveries by outcome, the outbox backlog,
// scheduler lag). One registry per app instance, so tests that start several apps do not share
// counters. docs/operations.md lists them; deploy/prometheus/alerts.yaml alerts on them.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  rateLimitRejections: Counter<'limiter'>;
  dependencyErrors: Counter<'dependency'>;
  answerCacheBytes: Gauge;
  warmReads: Counter;
  resultCacheBytes: Gauge;
  /** finished webhook delivery attempts by outcome (domain/webhooks/deliver.ts, AttemptResult) */
  webhookDeliveries: Counter<'outcome'>;
  /** how late due work was started, by scheduler (`webhook_delivery`; later schedulers add theirs) */
  schedulerLag: Histogram<'scheduler'>;
  /** entries each per-node cache holds, by cache (`grants`, `warm_reads`), read at scrape time */
  cacheEntries: Gauge<'cache'>;
  /** what `cacheEntries` reports: each cache's size when the registry is read */
  watchCacheEntries(read: () => Record<string, number>): void;
  webhookOutboxPending: Gauge;
  webhookOutboxOldestDue: Gauge;
  /**
   * Fills the outbox gauges at scrape time from `read` (one indexed query,
   * repositories/events/webhook-backlog.ts), reusing an answer younger than a second so that several
   * scrapers cost one query. A failed read keeps the previous values: the scrape still answers,
   * and /readyz reports the database.
   */
  watchWebhookOutbox(read: () => Promise<{ pending: number; oldestDueAt: number | null }>, now: () => number): void;
}

/** The scheduler label of the webhook delivery worker in cds_scheduler_lag_seconds. */
export const WEBHOOK_SCHEDULER = 'webhook_delivery';
/** the `scheduler` label of the time scheduler's lag (stale evidence, reviews due) */
export const TIME_SCHEDULER = 'time';
/** the outbox count stops here: enough to alert on, cheap to count */
export const OUTBOX_COUNT_CAP = 100_000;
/** scrapes within this long of the last outbox query reuse its answer */
const OUTBOX_CACHE_MS = 1000;

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let refreshOutbox: (() => Promise<void>) | undefined;
  let readCacheEntries: (() => Record<string, number>) | undefined;
  // prom-client awaits a gauge's collect() when the registry is read
  const collect = () => refreshOutbox?.();
  const metrics: Metrics = {
    registry,
    requests: new Counter({
      name: 'cds_http_requests_total',
      help: 'HTTP requests by route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'cds_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: 'cds_rate_limit_rejections_total',
      help: 'Requests refused with 429, by limiter (api, token, token_failure, unauthenticated, malformed)',
      labelNames: ['limiter'],
      registers: [registry],
    }),
    dependencyErrors: new Counter({
      name: 'cds_dependency_unavailable_total',
      help: 'Requests answered 503 because a dependency was unreachable',
      labelNames: ['dependency'],
      registers: [registry],
    }),
    answerCacheBytes: new Gauge({
      name: 'cds_answer_cache_bytes',
      help: 'Bytes of serialized cached answers held (at most RESULT_CACHE_MAX_BYTES)',
      registers: [registry],
    }),
    warmReads: new Counter({
      name: 'cds_warm_reads_total',
      help: 'Requests answered from held answer bytes before routing (also counted in cds_http_requests_total)',
      registers: [registry],
    }),
    resultCacheBytes: new Gauge({
      name: 'cds_result_cache_bytes',
      help: 'Estimated bytes of cached results held (at most RESULT_CACHE_MAX_OBJECT_BYTES)',
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'cds_webhook_deliveries_total',
      help: 'Webhook delivery attempts this node finished, by outcome (succeeded, retrying, failed = given up, lease_lost)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    schedulerLag: new Histogram({
      name: 'cds_scheduler_lag_seconds',
      help: 'How long after it was due this node started a piece of scheduled work, by scheduler',
      labelNames: ['scheduler'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    cacheEntries: new Gauge({
      name: 'cds_cache_entries',
      help: 'Entries a per-node cache holds, by cache: grants (at most GRANT_CACHE_MAX_ENTRIES), warm_reads (at most WARM_READS_MAX_ENTRIES)',
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        for (const [cache, entries] of Object.entries(readCacheEntries?.() ?? {})) this.set({ cache }, entries);
      },
    }),
    webhookOutboxPending: new Gauge({
      name: 'cds_webhook_outbox_pending',
      help: `Webhook deliveries waiting to be sent or retried, in the whole database (counted up to ${OUTBOX_COUNT_CAP})`,
      registers: [registry],
      collect,
    }),
    webhookOutboxOldestDue: new Gauge({
      name: 'cds_webhook_outbox_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery no worker holds has been waiting (0 when none is due)',
      registers: [registry],
      collect,
    }),
    watchCacheEntries(read) {
      readCacheEntries = read;
    },
    watchWebhookOutbox(read, now) {
      let last: { at: number; done: Promise<void> } | undefined;
      refreshOutbox = () => {
        const at = now();
        if (last && at - last.at < OUTBOX_CACHE_MS) return last.done;
        const done = read().then(
          (backlog) => {
            metrics.webhookOutboxPending.set(backlog.pending);
            metrics.webhookOutboxOldestDue.set(backlog.oldestDueAt === null ? 0 : Math.max(0, now() - backlog.oldestDueAt) / 1000);
          },
          () => {},
        );
        last = { at, done };
        return done;
      };
    },
  };
  return metrics;
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics) {
  // A callback hook, not an async one: it runs on every request and waits for nothing.
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, keeps label cardinality bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.requests.inc({ method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method, route }, reply.elapsedTime / 1000);
    done();
  });
}
