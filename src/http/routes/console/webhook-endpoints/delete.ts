// DELETE /console/api/webhook-endpoints/{endpointId}: removes the endpoint and its secrets; its
// pending deliveries fail at once, so none is sent.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteEndpoint } from '../../../../domain/webhooks/delete-endpoint.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';
import { EndpointParams } from './params.ts';

export default function deleteWebhookEndpointRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/console/api/webhook-endpoints/:endpointId',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['console'],
        summary: 'Delete a webhook endpoint',
        description:
          'Removes the endpoint and its signing secrets. Its pending deliveries become failed and are never sent; its delivery history stays.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: EndpointParams,
        response: {
          204: { description: 'Deleted; its pending deliveries will not be sent.', type: 'null' },
          ...consoleErrors({ 404: 'not_found: no such endpoint in the organization' }),
        },
      },
    },
    async (request, reply) => {
      await deleteEndpoint({ ctx: adminContextOf(system, request), input: request.params });
      return reply.code(204).send(null);
    },
  );
}
