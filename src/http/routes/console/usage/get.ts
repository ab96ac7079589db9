// GET /console/api/usage: requests and rate-limited requests per credential, hourly, last 24 hours.
import type { FastifyInstance } from 'fastify';
import { usageReport } from '../../../../domain/console/usage-report.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Usage } from '../../../../domain/console/schema.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

export default function usageRoute(app: FastifyInstance, { system, usage }: RouteDeps) {
  app.get(
    '/console/api/usage',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'getConsoleUsage',
        tags: ['console'],
        summary: 'API usage per credential, last 24 hours',
        description: 'Requests per credential over the last 24 hours, in hourly buckets, with the rate-limited ones counted apart.',
        security: CONSOLE_SECURITY,
        response: { 200: Envelope(Usage, 'The usage of the organization’s credentials.'), ...consoleErrors() },
      },
    },
    async (request) => {
      const ctx = adminContextOf(system, request);
      await usage.flush(); // this process's pending counts first
      return envelope(request, await usageReport({ ctx }));
    },
  );
}
