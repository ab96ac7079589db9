// GET /v1/tests
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listTests } from '../../../domain/tests/list.ts';
import { TEST_LIST_FIELDS, type TestListField } from '../../../domain/tests/shape.ts';
import { TEST_STATUSES } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList, textList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { TestSummary } from './schemas.ts';

const Query = Type.Object(
  {
    status: Type.Optional(enumList(TEST_STATUSES, 'Tests with any of these (computed) statuses.')),
    frameworkIds: Type.Optional(textList('Tests mapped to any of these framework IDs (comma-separated).')),
    assigneeEmails: Type.Optional(
      textList('Tests with an assignee whose email is any of these (comma-separated, case-insensitive; send + as %2B).'),
    ),
    applications: Type.Optional(textList('Tests with an application named any of these (comma-separated, case-insensitive).')),
    fields: Type.Optional(enumList(TEST_LIST_FIELDS, 'Optional fields to include.')),
  },
  { additionalProperties: false },
);

export default function listTestsRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/tests',
    {
      schema: {
        operationId: 'listTests',
        tags: ['tests'],
        summary: 'List automated and cloud tests',
        description: 'Every matching test in one array, ordered by testName, then testId.',
        security: [{ bearerAuth: ['test:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(TestSummary), 'The matching tests.'), ...v1Errors() },
      },
    },
    async (request, reply) => {
      const query = request.query;
      return replyRead({ system, answers, warm }, request, reply, listTests, {
        status: parseList(query.status),
        frameworkIds: parseList(query.frameworkIds),
        assigneeEmails: parseList(query.assigneeEmails),
        applications: parseList(query.applications),
        fields: parseList<TestListField>(query.fields),
      });
    },
  );
}
