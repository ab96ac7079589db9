// PATCH /v1/vulnerabilities/{vulnerabilityId}
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateVulnerabilityFields } from '../../../domain/vulnerabilities/update.ts';
import { UpdateVulnerabilityBody } from '../../../domain/vulnerabilities/write-schema.ts';
import { requestContext } from '../../plugins/auth.ts';
import { idempotencyOf, sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilityDetail, VulnerabilityIdParams } from './schemas.ts';

export default function updateVulnerabilityRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/v1/vulnerabilities/:vulnerabilityId',
    {
      preValidation: writeGuards('vulnerability'),
      schema: {
        operationId: 'updateVulnerability',
        tags: ['vulnerabilities'],
        summary: 'Update the assignee, report link or custom fields of a finding',
        description: 'Answers the finding as GET does. Idempotent under `Idempotency-Key` like the other writes.',
        security: [{ bearerAuth: ['vulnerability:write'] }],
        headers: WriteHeaders,
        params: VulnerabilityIdParams,
        body: UpdateVulnerabilityBody,
        response: {
          200: Envelope(VulnerabilityDetail, 'The finding after the update, as GET returns it.'),
          ...v1Errors({
            400: 'validation_failed (details name the field), or idempotency_key_required',
            404: 'not_found: no finding with this ID in the organization',
            409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const outcome = await updateVulnerabilityFields({
        ctx: requestContext(system, request),
        input: {
          vulnerabilityId: request.params.vulnerabilityId,
          idempotency: idempotencyOf(request, (id) => `/v1/vulnerabilities/${id}`),
          body: request.body,
        },
      });
      return sendOutcome(request, reply, outcome);
    },
  );
}
