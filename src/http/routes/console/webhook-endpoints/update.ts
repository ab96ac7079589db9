// PATCH /console/api/webhook-endpoints/{endpointId}: changes the URL, description, event types or
// status. Re-enabling clears the disabled reason and the run of failures; disabling stops the
// pending deliveries.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateEndpoint } from '../../../../domain/webhooks/update-endpoint.ts';
import {
  ENDPOINT_STATUSES,
  EndpointDescription,
  EndpointEventTypes,
  EndpointUrl,
  WebhookEndpoint,
} from '../../../../domain/webhooks/schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';
import { EndpointParams } from './params.ts';

const Body = Type.Object(
  {
    url: Type.Optional(EndpointUrl),
    description: Type.Optional(EndpointDescription),
    eventTypes: Type.Optional(EndpointEventTypes),
    status: Type.Optional(
      Type.Enum([...ENDPOINT_STATUSES], {
        description: 'disabled: nothing is sent and pending deliveries fail; enabled: delivery resumes with a clean record.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export default function updateWebhookEndpointRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/console/api/webhook-endpoints/:endpointId',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['console'],
        summary: 'Change a webhook endpoint',
        description: 'Only the fields given change. A new URL passes the same address checks as at registration.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: EndpointParams,
        body: Body,
        response: {
          200: Envelope(WebhookEndpoint, 'The endpoint as changed.'),
          ...consoleErrors({
            403: "forbidden: the X-CSRF-Token header is missing or wrong, or the request is cross-site; plan_restricted: eventTypes names a type of a resource the organization's plan excludes",
            404: 'not_found: no such endpoint in the organization',
          }),
        },
      },
    },
    async (request) =>
      envelope(
        request,
        await updateEndpoint({ ctx: adminContextOf(system, request), input: { ...request.body, endpointId: request.params.endpointId } }),
      ),
  );
}
