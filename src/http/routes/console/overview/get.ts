// GET /console/api/overview: each framework's progress, computed by GET /v1/frameworks's own verb.
import type { FastifyInstance } from 'fastify';
import { complianceOverview } from '../../../../domain/console/overview.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Overview } from '../../../../domain/console/schema.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

export default function overviewRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.get(
    '/console/api/overview',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'getConsoleOverview',
        tags: ['console'],
        summary: 'Compliance overview: every framework with its progress',
        description: 'The same computation as GET /v1/frameworks (complianceProgress).',
        security: CONSOLE_SECURITY,
        response: {
          200: Envelope(Overview, 'The frameworks with their progress.'),
          ...consoleErrors({ 403: 'plan_restricted: the plan does not include frameworks' }),
        },
      },
    },
    async (request) => {
      return envelope(request, await complianceOverview({ ctx: adminContextOf(system, request) }));
    },
  );
}
