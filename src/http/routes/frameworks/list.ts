// GET /v1/frameworks
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { FRAMEWORK_OPTIONAL_FIELDS, listFrameworks, type FrameworkOptionalField } from '../../../domain/frameworks/list.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList, textList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { Framework } from './schemas.ts';

const Query = Type.Object(
  {
    entityIds: Type.Optional(textList('Frameworks linked to any of these entity IDs (comma-separated).')),
    fields: Type.Optional(enumList(FRAMEWORK_OPTIONAL_FIELDS, 'Optional fields to include.')),
  },
  { additionalProperties: false },
);

export default function listFrameworksRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/frameworks',
    {
      schema: {
        operationId: 'listFrameworks',
        tags: ['frameworks'],
        summary: 'List frameworks with their compliance progress',
        description:
          'Every framework of the organization in one array, each with its complianceProgress (controls, policies, evidence and tests) computed on the fly.',
        security: [{ bearerAuth: ['framework:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(Framework), 'The matching frameworks.'), ...v1Errors() },
      },
    },
    async (request, reply) => {
      const query = request.query;
      return replyRead({ system, answers, warm }, request, reply, listFrameworks, {
        entityIds: parseList(query.entityIds),
        fields: parseList<FrameworkOptionalField>(query.fields),
      });
    },
  );
}
