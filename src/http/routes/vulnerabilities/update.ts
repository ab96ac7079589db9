// PATCH /v1/vulnerabilities/{vulnerabilityId}
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateVulnerabilityFields } from '../../../domain/vulnerabilities/update.ts';
import { UpdateVulnerabilityBody } from '../../../domain/vulnerabilities/write-schema.ts';
import { idempotencyOf, WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
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
          ...writeErrors('validation_failed (details name the field)', 'finding'),
        },
      },
    },
    async (request, reply) =>
      replyWrite(system, request, reply, updateVulnerabilityFields, {
        vulnerabilityId: request.params.vulnerabilityId,
        idempotency: idempotencyOf(request, (id) => `/v1/vulnerabilities/${id}`),
        body: request.body,
      }),
  );
}
