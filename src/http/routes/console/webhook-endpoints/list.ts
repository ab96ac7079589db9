// GET /console/api/webhook-endpoints: the organization's webhook endpoints, oldest first, without secrets.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listEndpoints } from '../../../../domain/webhooks/list-endpoints.ts';
import { WebhookEndpoint } from '../../../../domain/webhooks/schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

export default function listWebhookEndpointsRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.get(
    '/console/api/webhook-endpoints',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['console'],
        summary: 'List webhook endpoints',
        description: 'Every webhook endpoint of the organization, enabled and disabled, without signing secrets.',
        security: CONSOLE_SECURITY,
        response: { 200: Envelope(Type.Array(WebhookEndpoint), 'The endpoints.'), ...consoleErrors() },
      },
    },
    async (request) => envelope(request, await listEndpoints({ ctx: adminContextOf(system, request) })),
  );
}
