// POST /console/api/webhook-endpoints: registers an endpoint; its signing secret is in this response only.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createEndpoint } from '../../../../domain/webhooks/create-endpoint.ts';
import {
  EndpointDescription,
  EndpointEventTypes,
  EndpointUrl,
  MAX_ENDPOINTS_PER_ORG,
  NewWebhookEndpoint,
} from '../../../../domain/webhooks/schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';

const Body = Type.Object(
  { url: EndpointUrl, description: Type.Optional(EndpointDescription), eventTypes: EndpointEventTypes },
  { additionalProperties: false },
);

export default function createWebhookEndpointRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/webhook-endpoints',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['console'],
        summary: 'Register a webhook endpoint',
        description:
          'The signing secret is returned in this response only; the service keeps it encrypted, to sign deliveries. The URL is refused when it is, or its host name resolves to, a loopback, private, link-local or metadata address, unless WEBHOOKS_ALLOW_PRIVATE_ADDRESSES is on.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        body: Body,
        response: {
          201: Envelope(NewWebhookEndpoint, 'The endpoint was registered: with its signing secret, shown this once.'),
          ...consoleErrors({
            400: `validation_failed: the body is invalid (details name the field: a refused address says why), or the organization already has ${MAX_ENDPOINTS_PER_ORG} endpoints`,
            403: "forbidden: the X-CSRF-Token header is missing or wrong, or the request is cross-site; plan_restricted: eventTypes names a type of a resource the organization's plan excludes",
          }),
        },
      },
    },
    async (request, reply) => {
      const created = await createEndpoint({ ctx: adminContextOf(system, request), input: request.body });
      reply.code(201);
      return envelope(request, created);
    },
  );
}
