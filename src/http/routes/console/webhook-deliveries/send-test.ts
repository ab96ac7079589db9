// POST /console/api/webhook-endpoints/{endpointId}/test: a webhook.test event to one endpoint.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sendTestEvent } from '../../../../domain/webhooks/send-test.ts';
import { WebhookDelivery } from '../../../../domain/webhooks/delivery-schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';

const Params = Type.Object({ endpointId: Type.String({ maxLength: 100 }) });

export default function sendTestWebhookRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/webhook-endpoints/:endpointId/test',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'sendConsoleWebhookTest',
        tags: ['console'],
        summary: 'Send a test event to a webhook endpoint',
        description:
          'Queues a delivery of a `webhook.test` event (data: { endpointId }), signed and retried like any other; it is not an event of the feed.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: Params,
        response: {
          202: Envelope(WebhookDelivery, 'The delivery of the test event, pending.'),
          ...consoleErrors({
            400: 'validation_failed: the endpoint is disabled (enable it first)',
            404: 'not_found: no such webhook endpoint in the organization',
            429: 'rate_limit_exceeded: too many test events and redeliveries this minute (WEBHOOK_MANUAL_SENDS_PER_MIN); Retry-After says when to retry',
          }),
        },
      },
    },
    async (request, reply) => {
      const created = await sendTestEvent({ ctx: adminContextOf(system, request), input: { endpointId: request.params.endpointId } });
      reply.code(202);
      return envelope(request, created);
    },
  );
}
