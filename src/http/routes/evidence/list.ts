// GET /v1/evidence, and its plural alias GET /v1/evidences (same handler, same answer).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EVIDENCE_OPTIONAL_FIELDS, listEvidence, type EvidenceOptionalField, type EvidenceStatus } from '../../../domain/evidence/list.ts';
import { EVIDENCE_STATUSES } from '../../../shared/vocabulary.ts';
import { replyRead } from '../../reply.ts';
import { artifactListQuery, parseArtifactListQuery } from '../../schemas/artifacts.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { Evidence } from './schemas.ts';

const Query = artifactListQuery('evidence records', EVIDENCE_STATUSES, EVIDENCE_OPTIONAL_FIELDS);

/** The singular path of the spec and the plural alias its overview lists. */
export const EVIDENCE_PATHS = ['/v1/evidence', '/v1/evidences'] as const;

export default function listEvidenceRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  for (const path of EVIDENCE_PATHS) {
    app.withTypeProvider<TypeBoxTypeProvider>().get(
      path,
      {
        schema: {
          operationId: path === EVIDENCE_PATHS[0] ? 'listEvidence' : 'listEvidencePlural',
          tags: ['evidence'],
          summary: path === EVIDENCE_PATHS[0] ? 'List evidence records' : 'List evidence records (plural alias of /v1/evidence)',
          description:
            'Every evidence record of the organization matching all the filters given (any value within one filter), ordered by name, then ID.',
          security: [{ bearerAuth: ['evidence:read'] }],
          querystring: Query,
          response: { 200: Envelope(Type.Array(Evidence), 'The matching evidence records.'), ...v1Errors() },
        },
      },
      async (request, reply) =>
        replyRead(
          { system, answers, warm },
          request,
          reply,
          listEvidence,
          parseArtifactListQuery<EvidenceStatus, EvidenceOptionalField>(request.query),
        ),
    );
  }
}
