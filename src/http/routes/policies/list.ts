// GET /v1/policies
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listPolicies, POLICY_OPTIONAL_FIELDS, type PolicyOptionalField, type PolicyStatus } from '../../../domain/policies/list.ts';
import { POLICY_BEHAVIORS, POLICY_SOURCES, POLICY_STATUSES } from '../../../domain/vocabulary.ts';
import { requestContext } from '../../plugins/auth.ts';
import { envelope } from '../../reply.ts';
import { artifactListQuery, commonListProperties, commonOptionalProperties, parseArtifactListQuery } from '../../schemas/artifacts.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { NullableEpochMs, PersonStamp } from '../../schemas/resources.ts';
import type { RouteDeps } from '../deps.ts';

const Query = artifactListQuery('policies', POLICY_STATUSES, POLICY_OPTIONAL_FIELDS);

/** A policy list item; get-one (./get.ts) extends it. */
export const policyProperties = {
  policyId: Type.String(),
  policyCustomId: Type.String(),
  policyName: Type.String(),
  status: Type.Enum([...POLICY_STATUSES]),
  ...commonListProperties,
  aiDetectedGaps: Type.Array(Type.String()),
  policyBehavior: Type.Optional(Type.String({ description: `One of ${POLICY_BEHAVIORS.join(', ')}.` })),
  ...commonOptionalProperties,
  versionNumber: Type.Optional(Type.String()),
  source: Type.Optional(Type.String({ description: `Where the policy came from: one of ${POLICY_SOURCES.join(', ')}.` })),
  publishedBy: Type.Optional(PersonStamp),
  publishedOn: Type.Optional(NullableEpochMs),
};

export const Policy = Type.Object(policyProperties);

export default function listPoliciesRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/policies',
    {
      schema: {
        tags: ['policies'],
        summary: 'List policies',
        description: 'Every policy of the organization matching all the filters given (any value within one filter), ordered by name, then ID.',
        security: [{ bearerAuth: ['policy:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(Policy)), ...v1Errors() },
      },
    },
    async (request) => {
      const data = await listPolicies({
        ctx: requestContext(system, request),
        input: parseArtifactListQuery<PolicyStatus, PolicyOptionalField>(request.query),
      });
      return envelope(request, data);
    },
  );
}
