// GET /v1/controls
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CONTROL_OPTIONAL_FIELDS,
  listControls,
  type ControlOptionalField,
  type ControlScope,
  type FunctionGrouping,
} from '../../../domain/controls/list.ts';
import type { ControlStatus } from '../../../domain/compliance/rules.ts';
import { CONTROL_STATUSES } from '../../../domain/controls/schema.ts';
import { CONTROL_SCOPES, FUNCTION_GROUPINGS } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList, textList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { ControlSummary } from './schemas.ts';

const Query = Type.Object(
  {
    status: Type.Optional(enumList(CONTROL_STATUSES, 'Controls whose computed status (over `frameworkIds` when given) is any of these.')),
    frameworkIds: Type.Optional(
      textList(
        'Controls mapped to any of these framework IDs (comma-separated). Also computes status and controlCompliancePercentage over only the artifacts mapped to these frameworks.',
      ),
    ),
    entityIds: Type.Optional(textList('Controls linked to any of these entity IDs (comma-separated).')),
    assigneeEmails: Type.Optional(
      textList('Controls with an assignee whose email is any of these (comma-separated, case-insensitive; send + as %2B).'),
    ),
    domains: Type.Optional(textList('Controls whose controlDomain is any of these (comma-separated, case-insensitive).')),
    functionGroupings: Type.Optional(enumList(FUNCTION_GROUPINGS, 'Controls of any of these function groupings.')),
    controlScope: Type.Optional(enumList(CONTROL_SCOPES, 'Controls of any of these scopes.')),
    fields: Type.Optional(enumList(CONTROL_OPTIONAL_FIELDS, 'Optional fields to include.')),
  },
  { additionalProperties: false },
);

export default function listControlsRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/controls',
    {
      schema: {
        operationId: 'listControls',
        tags: ['controls'],
        summary: 'List controls with their computed status',
        description:
          'Every matching control in one array, ordered by controlName, then controlId. Filters combine as AND; the values of one filter as OR.',
        security: [{ bearerAuth: ['control:read'] }],
        querystring: Query,
        response: { 200: Envelope(Type.Array(ControlSummary), 'The matching controls.'), ...v1Errors() },
      },
    },
    async (request, reply) => {
      const query = request.query;
      return replyRead({ system, answers, warm }, request, reply, listControls, {
        status: parseList<ControlStatus>(query.status),
        frameworkIds: parseList(query.frameworkIds),
        entityIds: parseList(query.entityIds),
        assigneeEmails: parseList(query.assigneeEmails),
        domains: parseList(query.domains),
        functionGroupings: parseList<FunctionGrouping>(query.functionGroupings),
        controlScope: parseList<ControlScope>(query.controlScope),
        fields: parseList<ControlOptionalField>(query.fields),
      });
    },
  );
}
