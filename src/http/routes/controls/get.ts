// GET /v1/controls/{controlId}
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CONTROL_EXPANSIONS, getControl, type ControlExpansion } from '../../../domain/controls/get.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { parseList } from '../../schemas/lists.ts';
import { expansionsQuery, idParams } from '../../schemas/artifacts.ts';
import type { RouteDeps } from '../deps.ts';
import { ControlDetail } from './schemas.ts';

const Params = idParams('controlId', 'A control ID of the caller’s organization.');
const Query = expansionsQuery(CONTROL_EXPANSIONS);

export default function getControlRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/controls/:controlId',
    {
      schema: {
        operationId: 'getControl',
        tags: ['controls'],
        summary: 'Get one control',
        description:
          'The list fields plus controlDescription, mappedFrameworks, controlQuestions, outOfScopeReason, authorship (addedBy, addedOn, lastModifiedBy, modifiedOn) and mappedRequirements; ' +
          'status over all its frameworks. complianceOverview (status per framework), mappedArtifacts (policies, evidence and automated tests) and mappedRisks only when asked for in `fields`.',
        security: [{ bearerAuth: ['control:read'] }],
        params: Params,
        querystring: Query,
        response: {
          200: Envelope(ControlDetail, 'The control.'),
          ...v1Errors({ 404: 'not_found: no control with this ID in the organization' }),
        },
      },
    },
    async (request, reply) =>
      replyRead({ system, answers, warm }, request, reply, getControl, {
        controlId: request.params.controlId,
        fields: parseList<ControlExpansion>(request.query.fields),
      }),
  );
}
