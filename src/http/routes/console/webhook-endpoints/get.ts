// GET /console/api/webhook-endpoints/{endpointId}: one endpoint of the organization, without its secret.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getEndpoint } from '../../../../domain/webhooks/get-endpoint.ts';
import { WebhookEndpoint } from '../../../../domain/webhooks/schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';
import { EndpointParams } from './params.ts';

export default function getWebhookEndpointRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/console/api/webhook-endpoints/:endpointId',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['console'],
        summary: 'Get a webhook endpoint',
        description: 'The endpoint without its signing secret, which is shown only at registration and rotation.',
        security: CONSOLE_SECURITY,
        params: EndpointParams,
        response: {
          200: Envelope(WebhookEndpoint, 'The endpoint.'),
          ...consoleErrors({ 404: 'not_found: no such endpoint in the organization' }),
        },
      },
    },
    async (request) => envelope(request, await getEndpoint({ ctx: adminContextOf(system, request), input: request.params })),
  );
}
