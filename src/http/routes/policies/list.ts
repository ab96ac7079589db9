// GET /v1/policies
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listPolicies, POLICY_OPTIONAL_FIELDS, type PolicyOptionalField, type PolicyStatus } from '../../../domain/policies/list.ts';
import { POLICY_STATUSES } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { artifactListQuery, parseArtifactListQuery } from '../../schemas/artifacts.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { Policy } from './schemas.ts';

const Query = artifactListQuery('policies', POLICY_STATUSES, POLICY_OPTIONAL_FIELDS);

export default function listPoliciesRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/policies',
    {
      schema: {
        operationId: 'listPolicies',
        tags: ['policies'],
        summary: 'List policies',
        description:
          'Every policy of the organization matching all the filters given (any value within one filter), ordered by name, then ID.',
        security: [{ bearerAuth: ['policy:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(Policy), 'The matching policies.'), ...v1Errors() },
      },
    },
    async (request, reply) =>
      replyRead(
        { system, answers, warm },
        request,
        reply,
        listPolicies,
        parseArtifactListQuery<PolicyStatus, PolicyOptionalField>(request.query),
      ),
  );
}
