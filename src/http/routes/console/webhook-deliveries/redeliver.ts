// POST /console/api/webhook-deliveries/{deliveryId}/redeliver: the same event to the same endpoint
// again, as a new delivery (same webhook-id, so receivers deduplicate it).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { redeliver } from '../../../../domain/webhooks/redeliver.ts';
import { WebhookDelivery } from '../../../../domain/webhooks/delivery-schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';

const Params = Type.Object({ deliveryId: Type.String({ maxLength: 100 }) });

export default function redeliverWebhookRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/webhook-deliveries/:deliveryId/redeliver',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'redeliverConsoleWebhook',
        tags: ['console'],
        summary: 'Redeliver a webhook',
        description:
          "Queues a new delivery of the same event (same eventId and body, hence the same webhook-id header) to the same endpoint; it is sent within moments. The event must still be kept (EVENT_RETENTION_DAYS) and within the organization's plan.",
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: Params,
        response: {
          202: Envelope(WebhookDelivery, 'The new delivery, pending.'),
          ...consoleErrors({
            400: 'validation_failed: the endpoint of the delivery is disabled (enable it first), or its event is past its retention',
            403: "forbidden: the X-CSRF-Token header is missing or wrong, or the request is cross-site; plan_restricted: the organization's plan no longer includes the event's resource",
            404: 'not_found: no such webhook delivery in the organization',
            429: 'rate_limit_exceeded: too many test events and redeliveries this minute (WEBHOOK_MANUAL_SENDS_PER_MIN); Retry-After says when to retry',
          }),
        },
      },
    },
    async (request, reply) => {
      const created = await redeliver({ ctx: adminContextOf(system, request), input: { deliveryId: request.params.deliveryId } });
      reply.code(202);
      return envelope(request, created);
    },
  );
}
