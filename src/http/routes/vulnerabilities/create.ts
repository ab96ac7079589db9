// POST /v1/vulnerabilities
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createVulnerability, CREATE_STATUSES, FINDING_KEY_PATTERN } from '../../../domain/vulnerabilities/create.ts';
import { FIX_AVAILABLE } from '../../../domain/vulnerabilities/shape.ts';
import { SEVERITIES } from '../../../domain/vocabulary.ts';
import { requestContext } from '../../plugins/auth.ts';
import { sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilityDetail } from './schemas.ts';

const text = (maxLength: number, description?: string) => Type.String({ maxLength, description });
/** Names and tags: 1-255 characters with at least one that is not a space. */
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

const AffectedResourceInput = Type.Object(
  {
    name: Name,
    type: Name,
    tags: Type.Optional(Type.Array(Name, { maxItems: 3, description: 'At most 3 tags.' })),
  },
  { additionalProperties: false },
);

export const CreateVulnerabilityBody = Type.Object(
  {
    vulnerabilityId: Type.String({
      pattern: FINDING_KEY_PATTERN.source,
      maxLength: 64,
      description:
        'The finding key: `VUL-` and four digits, or a CVE ID (`CVE-`, four-digit year, `-`, a sequence of four digits starting with 0 or four or more starting with 1-9). The finding is returned as `api%23<key>`.',
    }),
    title: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: '1-255 characters, not blank.' }),
    severity: Type.Enum([...SEVERITIES]),
    status: Type.Enum([...CREATE_STATUSES], { description: '`ignored` and `risk` cannot be chosen at creation.' }),
    description: Type.Optional(text(750, 'At most 750 characters.')),
    remediation: Type.Optional(text(750, 'At most 750 characters.')),
    stepsToReproduce: Type.Optional(text(750, 'At most 750 characters.')),
    fixAvailable: Type.Optional(Type.Enum([...FIX_AVAILABLE])),
    firstSeen: Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Epoch ms; default: now.' })),
    affectedResources: Type.Optional(Type.Array(AffectedResourceInput, { maxItems: 100, description: 'At most 100; each starts `open`.' })),
    assigneeEmail: Type.Optional(
      Type.String({ format: 'email', maxLength: 255, description: 'A person of the organization (case-insensitive).' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Only these fields are accepted: `source`, custom fields and a report link cannot be sent.',
  },
);

export default function createVulnerabilityRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/vulnerabilities',
    {
      preValidation: writeGuards('vulnerability'),
      schema: {
        tags: ['vulnerabilities'],
        summary: 'Create a vulnerability finding (source api)',
        description:
          'Idempotent under `Idempotency-Key`: a retry with the same key and body within 24 hours answers the stored response with `Idempotent-Replayed: true`. A key already used by the organization (any source) answers 400 naming `vulnerabilityId`.',
        security: [{ bearerAuth: ['vulnerability:write'] }],
        headers: WriteHeaders,
        body: CreateVulnerabilityBody,
        response: {
          201: Envelope(VulnerabilityDetail),
          ...v1Errors({
            400: 'validation_failed (details name the field), or idempotency_key_required',
            409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const outcome = await createVulnerability({
        ctx: requestContext(system, request),
        input: { idempotencyKey: request.idempotencyKey!, body: request.body },
      });
      return sendOutcome(request, reply, outcome);
    },
  );
}
