// GET /healthz (the process is up), GET /readyz (its dependencies answer), GET /metrics.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DependencyUnavailableError } from '../../../domain/errors.ts';
import { asDependencyError } from '../../../storage/db/errors.ts';
import type { RouteDeps } from '../deps.ts';

const Ready = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Record(Type.String(), Type.String()),
});

export default function healthRoutes(app: FastifyInstance, { system, store, metrics }: RouteDeps) {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness: the process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database and the rate-limit store answer',
        response: { 200: Ready, 503: { description: 'upstream_unavailable', $ref: 'ErrorBody#' } },
      },
    },
    async () => {
      try {
        await system.db.ping();
      } catch (err) {
        throw asDependencyError(err) ?? new DependencyUnavailableError('database', 'ping failed', { cause: err });
      }
      await store.ping();
      return {
        status: 'ready' as const,
        checks: { database: system.db.dialect, rateLimitStore: store.kind },
      };
    },
  );

  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false } }, async (_request, reply) => {
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
