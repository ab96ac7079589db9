// GET /healthz (the process is up) and GET /readyz (its dependencies answer) on the API port.
// They say only up or not: which dependency is down, and /metrics, are for the operations
// listener (src/http/ops-server.ts), which is not exposed with the API. /healthz also names the
// release running (as GitLab's and Grafana's health endpoints do), so an operator can see which
// version a node behind the load balancer runs during a rolling upgrade; it says nothing of the
// dependencies, so "up or down, no detail" (docs/deployment.md, "Health and version") still holds.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ServiceError } from '../../../shared/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { checkReadiness } from './readiness.ts';
import { quietLogLevel } from '../../../logger.ts';
import { SERVICE_VERSION } from '../../../shared/version.ts';

export default function healthRoutes(app: FastifyInstance, { system, config }: RouteDeps) {
  // probes poll these every few seconds: their requests are logged at debug only
  const logLevel = quietLogLevel(config.logLevel);
  app.get(
    '/healthz',
    {
      logLevel,
      schema: {
        operationId: 'getHealth',
        tags: ['operations'],
        summary: 'Liveness: the process is up, and the version it runs',
        description:
          'Answers as long as the process serves requests; it checks no dependency (see /readyz). Needs no token and is not rate limited. ' +
          '`version` is an extension: the release this node runs.',
        security: [],
        response: {
          200: Type.Object(
            {
              status: Type.Literal('ok'),
              version: Type.String({ description: 'Extension: the release this node runs (semantic versioning), e.g. `0.2.0`.' }),
            },
            { description: 'The process is up.' },
          ),
        },
      },
    },
    async () => ({ status: 'ok' as const, version: SERVICE_VERSION }),
  );

  app.get(
    '/readyz',
    {
      logLevel,
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'Readiness: the database and the rate-limit store answer (details on the operations listener)',
        description:
          'Up or not, without saying which dependency is down (the operations listener’s /readyz says). Needs no token and is not rate limited.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }, { description: 'The database and the rate-limit store answer.' }),
          503: { description: 'upstream_unavailable: a dependency does not answer', $ref: 'ErrorBody#' },
        },
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
