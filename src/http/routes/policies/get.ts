// GET /v1/policies/{policyId}
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getPolicy, POLICY_EXPANSIONS, type PolicyExpansion } from '../../../domain/policies/get.ts';
import { replyRead } from '../../reply.ts';
import { expansionsQuery, idParams } from '../../schemas/artifacts.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { parseList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { PolicyDetail } from './schemas.ts';

const Params = idParams('policyId', 'A policy ID of the caller’s organization.');
const Query = expansionsQuery(POLICY_EXPANSIONS);

export default function getPolicyRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/policies/:policyId',
    {
      schema: {
        operationId: 'getPolicy',
        tags: ['policies'],
        summary: 'Get one policy',
        description:
          'The list fields plus the requirement text, mappings and authorship (addedBy, addedOn, lastModifiedBy, modifiedOn, publishedBy, publishedOn); ' +
          'documents, versionHistory and tickets only when asked for in `fields`.',
        security: [{ bearerAuth: ['policy:read'] }],
        params: Params,
        querystring: Query,
        response: {
          200: Envelope(PolicyDetail, 'The policy.'),
          ...v1Errors({ 404: 'not_found: no policy with this ID in the organization' }),
        },
      },
    },
    async (request, reply) =>
      replyRead({ system, answers, warm }, request, reply, getPolicy, {
        policyId: request.params.policyId,
        fields: parseList<PolicyExpansion>(request.query.fields),
      }),
  );
}
