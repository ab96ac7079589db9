// GET /console/api/webhook-endpoints/{endpointId}/deliveries: the endpoint's deliveries, newest first.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listDeliveries } from '../../../../domain/webhooks/list-deliveries.ts';
import { WebhookDelivery } from '../../../../domain/webhooks/delivery-schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { Meta } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

const Params = Type.Object({ endpointId: Type.String({ maxLength: 100 }) });
const Query = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Deliveries per page' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'meta.nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

export default function listWebhookDeliveriesRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/console/api/webhook-endpoints/:endpointId/deliveries',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'listConsoleWebhookDeliveries',
        tags: ['console'],
        summary: "List a webhook endpoint's deliveries",
        description:
          'One delivery per event sent to the endpoint (and per redelivery or test event), newest first, one page at a time: pass meta.nextCursor back as `cursor` until it is null.',
        security: CONSOLE_SECURITY,
        params: Params,
        querystring: Query,
        response: {
          200: Type.Object(
            {
              data: Type.Array(WebhookDelivery),
              meta: Type.Intersect([Meta, Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]) })]),
            },
            { description: 'One page of deliveries, with the cursor of the next page.' },
          ),
          ...consoleErrors({ 404: 'not_found: no such webhook endpoint in the organization' }),
        },
      },
    },
    async (request) => {
      const page = await listDeliveries({
        ctx: adminContextOf(system, request),
        input: { endpointId: request.params.endpointId, count: request.query.count ?? 50, cursor: request.query.cursor },
      });
      return { data: page.deliveries, meta: { requestId: request.id, nextCursor: page.nextCursor } };
    },
  );
}
