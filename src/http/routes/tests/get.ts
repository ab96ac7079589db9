// GET /v1/tests/{testId}
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getTest } from '../../../domain/tests/get.ts';
import { TEST_EXPANSIONS, type TestExpansion } from '../../../domain/tests/shape.ts';
import { TEST_STATUSES } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList } from '../../schemas/lists.ts';
import { expansionsQuery, idParams } from '../../schemas/artifacts.ts';
import type { RouteDeps } from '../deps.ts';
import { TestDetail } from './schemas.ts';

const Params = idParams('testId', 'ID of an automated or a cloud test.');

const Query = expansionsQuery(TEST_EXPANSIONS, {
  resourceStatus: Type.Optional(
    enumList(
      TEST_STATUSES,
      'Flagged resources to show, by status (any of them). Default: fix_required. `affected` has no resource-level equivalent and selects no resource on its own.',
    ),
  ),
});

export default function getTestRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/tests/:testId',
    {
      schema: {
        operationId: 'getTest',
        tags: ['tests'],
        summary: 'Get one automated or cloud test with its flagged resources',
        description: 'The list fields of one test plus its flagged resources; expansions only when asked for in `fields`.',
        security: [{ bearerAuth: ['test:read'] }],
        params: Params,
        querystring: Query,
        response: { 200: Envelope(TestDetail, 'The test.'), ...v1Errors({ 404: 'not_found: no test with this ID in the organization' }) },
      },
    },
    async (request, reply) =>
      replyRead({ system, answers, warm }, request, reply, getTest, {
        testId: request.params.testId,
        resourceStatus: parseList(request.query.resourceStatus),
        fields: parseList<TestExpansion>(request.query.fields),
      }),
  );
}
