// GET /console/api/webhook-deliveries/{deliveryId}/attempts: what each attempt of a delivery got.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listDeliveryAttempts } from '../../../../domain/webhooks/list-attempts.ts';
import { WebhookDeliveryAttempt } from '../../../../domain/webhooks/delivery-schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

const Params = Type.Object({ deliveryId: Type.String({ maxLength: 100 }) });

export default function listWebhookDeliveryAttemptsRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/console/api/webhook-deliveries/:deliveryId/attempts',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'listConsoleWebhookDeliveryAttempts',
        tags: ['console'],
        summary: "List a webhook delivery's attempts",
        description: "Every attempt, first to last: when, the receiver's status and the first 1 KB of its answer, or why it failed.",
        security: CONSOLE_SECURITY,
        params: Params,
        response: {
          200: Envelope(Type.Array(WebhookDeliveryAttempt), 'The attempts.'),
          ...consoleErrors({ 404: 'not_found: no such webhook delivery in the organization' }),
        },
      },
    },
    async (request) => {
      const attempts = await listDeliveryAttempts({
        ctx: adminContextOf(system, request),
        input: { deliveryId: request.params.deliveryId },
      });
      return envelope(request, attempts);
    },
  );
}
