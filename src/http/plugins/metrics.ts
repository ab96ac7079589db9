// Prometheus metrics: requests by route and status, latency histograms, rate-limit rejections.
// One registry per app instance, so tests that start several apps do not share counters.
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
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
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
  };
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
