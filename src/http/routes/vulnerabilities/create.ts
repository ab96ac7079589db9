// POST /v1/vulnerabilities
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createVulnerability } from '../../../domain/vulnerabilities/create.ts';
import { CreateVulnerabilityBody } from '../../../domain/vulnerabilities/write-schema.ts';
import { idempotencyOf, WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilityDetail } from './schemas.ts';

export default function createVulnerabilityRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/vulnerabilities',
    {
      preValidation: writeGuards('vulnerability'),
      schema: {
        operationId: 'createVulnerability',
        tags: ['vulnerabilities'],
        summary: 'Create a vulnerability finding (source api)',
        description:
          'Idempotent under `Idempotency-Key`: a retry with the same key and body within 24 hours answers the stored response with `Idempotent-Replayed: true`. A key already used by the organization (any source) answers 400 naming `vulnerabilityId`.',
        security: [{ bearerAuth: ['vulnerability:write'] }],
        headers: WriteHeaders,
        body: CreateVulnerabilityBody,
        response: {
          201: Envelope(
            VulnerabilityDetail,
            'The finding was created (or this is the replay of its creation): the finding as GET returns it.',
          ),
          ...writeErrors('validation_failed (details name the field)'),
        },
      },
    },
    async (request, reply) =>
      replyWrite(
        system,
        request,
        reply,
        createVulnerability,
        { idempotency: idempotencyOf(request, () => '/v1/vulnerabilities'), body: request.body },
        (finding) => `/v1/vulnerabilities/${finding.vulnerabilityId}`,
      ),
  );
}
