// The operations listener: GET /metrics (Prometheus text) and GET /readyz with the checks (which
// dependency is down), on their own port, loopback by default (OPS_HOST/OPS_PORT), as Prometheus
// exporters do. Metrics show per-route counts of 401 and 429 answers, a live view of attacks, so
// they are not served on the API port. No credentials and no rate limit: the address is the guard.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Db } from '../storage/db/connect.ts';
import type { RateLimitStore } from '../storage/ratelimit/store.ts';
import type { Metrics } from './plugins/metrics.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { checkReadiness } from './routes/ops/readiness.ts';

export interface OpsDeps {
  db: Db;
  store: RateLimitStore;
  /** the API app's metrics (its registry is what /metrics serves) */
  metrics: Metrics;
}

export async function buildOpsApp({ db, store, metrics }: OpsDeps): Promise<FastifyInstance> {
  // No logger: its "Server listening" line would be mistaken for the API's; main.ts logs the address.
  const app = Fastify({ logger: false, genReqId: () => `req_${randomBytes(12).toString('hex')}`, requestIdHeader: false });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  registerErrorHandler(app);

  app.get('/metrics', async (_request, reply) => {
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/readyz', async () => ({ status: 'ready' as const, checks: await checkReadiness(db, store) }));
  return app;
}
