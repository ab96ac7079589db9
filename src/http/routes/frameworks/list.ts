// GET /v1/frameworks
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { FRAMEWORK_OPTIONAL_FIELDS, listFrameworks, type FrameworkOptionalField } from '../../../domain/frameworks/list.ts';
import { requestContext } from '../../plugins/auth.ts';
import { envelope } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList, textList } from '../../schemas/lists.ts';
import { Entity, EpochMs, NullableEpochMs, PersonStamp } from '../../schemas/resources.ts';
import type { RouteDeps } from '../deps.ts';

const Query = Type.Object(
  {
    entityIds: Type.Optional(textList('Frameworks linked to any of these entity IDs (comma-separated).')),
    fields: Type.Optional(enumList(FRAMEWORK_OPTIONAL_FIELDS, 'Optional fields to include.')),
  },
  { additionalProperties: false },
);

const counts = <K extends string>(key: K) =>
  Type.Object({ [key]: Type.Integer(), total: Type.Integer(), percentage: Type.Integer() } as Record<K | 'total' | 'percentage', ReturnType<typeof Type.Integer>>);

export const Framework = Type.Object({
  frameworkId: Type.String(),
  frameworkName: Type.String(),
  entities: Type.Array(Entity),
  nextAuditDate: NullableEpochMs,
  complianceProgress: Type.Object({
    controls: counts('compliant'),
    policies: counts('published'),
    evidence: counts('uploaded'),
    tests: counts('passing'),
  }),
  addedBy: Type.Optional(PersonStamp),
  addedOn: Type.Optional(EpochMs),
  lastModifiedBy: Type.Optional(PersonStamp),
  modifiedOn: Type.Optional(NullableEpochMs),
  tscSelections: Type.Optional(Type.Array(Type.String())),
});

export default function listFrameworksRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/frameworks',
    {
      schema: {
        tags: ['frameworks'],
        summary: 'List frameworks with their compliance progress',
        security: [{ bearerAuth: ['framework:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(Framework)), ...v1Errors() },
      },
    },
    async (request) => {
      const query = request.query;
      const data = await listFrameworks({
        ctx: requestContext(system, request),
        input: { entityIds: parseList(query.entityIds), fields: parseList<FrameworkOptionalField>(query.fields) },
      });
      return envelope(request, data);
    },
  );
}
