// GET /healthz (the process is up) and GET /readyz (its dependencies answer) on the API port.
// They say only up or not: which dependency is down, and /metrics, are for the operations
// listener (src/http/ops-server.ts), which is not exposed with the API.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ServiceError } from '../../../domain/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { checkReadiness } from './readiness.ts';
import { quietLogLevel } from '../../../logger.ts';

export default function healthRoutes(app: FastifyInstance, { system, config }: RouteDeps) {
  // probes poll these every few seconds: their requests are logged at debug only
  const logLevel = quietLogLevel(config.logLevel);
  app.get(
    '/healthz',
    {
      logLevel,
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process is up',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      logLevel,
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database and the rate-limit store answer (details on the operations listener)',
        response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: { description: 'upstream_unavailable', $ref: 'ErrorBody#' } },
      },
    },
    async (request) => {
      try {
        await checkReadiness(system.db, system.limiter);
      } catch (err) {
        request.log.warn({ err: { message: (err as Error).message, details: (err as ServiceError).details } }, 'not ready');
        throw new ServiceError('upstream_unavailable', 'The service is not ready.');
      }
      return { status: 'ready' as const };
    },
  );
}
