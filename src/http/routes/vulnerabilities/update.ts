// PATCH /v1/vulnerabilities/{vulnerabilityId}
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateVulnerabilityFields, MAX_CUSTOM_FIELD_VALUE } from '../../../domain/vulnerabilities/update.ts';
import { requestContext } from '../../plugins/auth.ts';
import { sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilityDetail, VulnerabilityIdParams } from './schemas.ts';

const FieldId = Type.String({ minLength: 1, maxLength: 255 });
const FieldValue = Type.String({ maxLength: MAX_CUSTOM_FIELD_VALUE });

const CustomFieldInput = Type.Object(
  {
    customFieldId: Type.Optional(FieldId),
    id: Type.Optional(Type.String({ ...FieldId, description: 'Same as customFieldId.' })),
    fieldValue: Type.Optional(FieldValue),
    value: Type.Optional(Type.String({ ...FieldValue, description: 'Same as fieldValue.' })),
  },
  {
    additionalProperties: false,
    description:
      'Names a custom field by `customFieldId` (or `id`) and sets its value with `fieldValue` (or `value`). A dropdown takes one of its options; `""` clears any field.',
  },
);

export const UpdateVulnerabilityBody = Type.Object(
  {
    assigneeEmail: Type.Optional(
      Type.String({ format: 'email', maxLength: 255, description: 'Becomes the only assignee; a person of the organization.' }),
    ),
    reportLink: Type.Optional(Type.String({ maxLength: 2048, description: 'An http(s) URL; `""` clears the link.' })),
    customFields: Type.Optional(Type.Array(CustomFieldInput, { maxItems: 100 })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Only these fields are writable; `status` and `source` are refused.',
  },
);

export default function updateVulnerabilityRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/v1/vulnerabilities/:vulnerabilityId',
    {
      preValidation: writeGuards('vulnerability'),
      schema: {
        tags: ['vulnerabilities'],
        summary: 'Update the assignee, report link or custom fields of a finding',
        description: 'Answers the finding as GET does. Idempotent under `Idempotency-Key` like the other writes.',
        security: [{ bearerAuth: ['vulnerability:write'] }],
        headers: WriteHeaders,
        params: VulnerabilityIdParams,
        body: UpdateVulnerabilityBody,
        response: {
          200: Envelope(VulnerabilityDetail),
          ...v1Errors({
            400: 'validation_failed (details name the field), or idempotency_key_required',
            404: 'not_found: no finding with this ID in the organization',
            409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const outcome = await updateVulnerabilityFields({
        ctx: requestContext(system, request),
        input: { vulnerabilityId: request.params.vulnerabilityId, idempotencyKey: request.idempotencyKey!, body: request.body },
      });
      return sendOutcome(request, reply, outcome);
    },
  );
}
