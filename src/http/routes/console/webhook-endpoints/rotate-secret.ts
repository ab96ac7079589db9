// POST /console/api/webhook-endpoints/{endpointId}/rotate-secret: a new signing secret, shown in
// this response only; the previous one keeps signing until previousSecretExpiresAt.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { rotateSecret } from '../../../../domain/webhooks/rotate-secret.ts';
import { RotatedSecret } from '../../../../domain/webhooks/schema.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';
import { EndpointParams } from './params.ts';

export default function rotateWebhookSecretRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/webhook-endpoints/:endpointId/rotate-secret',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['console'],
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Deliveries are signed with both the new and the previous secret (two v1 entries in webhook-signature) until previousSecretExpiresAt (WEBHOOK_SECRET_OVERLAP_SEC, 24 h by default), so receivers can switch without missing one.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: EndpointParams,
        response: {
          200: Envelope(RotatedSecret, 'The new secret, shown this once.'),
          ...consoleErrors({ 404: 'not_found: no such endpoint in the organization' }),
        },
      },
    },
    async (request) => envelope(request, await rotateSecret({ ctx: adminContextOf(system, request), input: request.params })),
  );
}
