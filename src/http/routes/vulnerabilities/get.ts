// GET /v1/vulnerabilities/{vulnerabilityId}
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getVulnerability } from '../../../domain/vulnerabilities/get.ts';
import { VULNERABILITY_EXPANSIONS, type VulnerabilityExpansion } from '../../../domain/vulnerabilities/shape.ts';
import { VULNERABILITY_RESOURCE_STATUSES } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { expansionsQuery } from '../../schemas/artifacts.ts';
import { enumList, parseList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilityDetail, VulnerabilityIdParams } from './schemas.ts';

const Query = expansionsQuery(VULNERABILITY_EXPANSIONS, {
  resourceStatus: Type.Optional(
    enumList(VULNERABILITY_RESOURCE_STATUSES, 'Affected resources to show, by status (any of them). Default: open, risk.'),
  ),
});

export default function getVulnerabilityRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/vulnerabilities/:vulnerabilityId',
    {
      schema: {
        operationId: 'getVulnerability',
        tags: ['vulnerabilities'],
        summary: 'Get one vulnerability finding',
        description:
          'One finding in the get shape, with its affected resources (by default those open or at risk; `resourceStatus` chooses) and custom fields; expansions only when asked for in `fields`.',
        security: [{ bearerAuth: ['vulnerability:read'] }],
        params: VulnerabilityIdParams,
        querystring: Query,
        response: {
          200: Envelope(VulnerabilityDetail, 'The finding.'),
          ...v1Errors({ 404: 'not_found: no finding with this ID in the organization (also for an ID encoded twice)' }),
        },
      },
    },
    async (request, reply) =>
      replyRead({ system, answers, warm }, request, reply, getVulnerability, {
        vulnerabilityId: request.params.vulnerabilityId,
        resourceStatus: parseList(request.query.resourceStatus),
        fields: parseList<VulnerabilityExpansion>(request.query.fields),
      }),
  );
}
