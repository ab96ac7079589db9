// GET /v1/evidence/{evidenceId}, and its plural alias GET /v1/evidences/{evidenceId}.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EVIDENCE_EXPANSIONS, getEvidence, type EvidenceExpansion } from '../../../domain/evidence/get.ts';
import { replyRead } from '../../reply.ts';
import { expansionsQuery, idParams } from '../../schemas/artifacts.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { parseList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { EVIDENCE_PATHS } from './list.ts';
import { EvidenceDetail } from './schemas.ts';

const Params = idParams('evidenceId', 'An evidence ID of the caller’s organization.');
const Query = expansionsQuery(EVIDENCE_EXPANSIONS);

export default function getEvidenceRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  for (const base of EVIDENCE_PATHS) {
    app.withTypeProvider<TypeBoxTypeProvider>().get(
      `${base}/:evidenceId`,
      {
        schema: {
          operationId: base === EVIDENCE_PATHS[0] ? 'getEvidence' : 'getEvidencePlural',
          tags: ['evidence'],
          summary:
            base === EVIDENCE_PATHS[0] ? 'Get one evidence record' : 'Get one evidence record (plural alias of /v1/evidence/{evidenceId})',
          description:
            'The list fields plus mappings, requirement text, cadence, authorship and the revision request; ' +
            'mappedTests, gaps, attachments and tickets only when asked for in `fields`.',
          security: [{ bearerAuth: ['evidence:read'] }],
          params: Params,
          querystring: Query,
          response: {
            200: Envelope(EvidenceDetail, 'The evidence record.'),
            ...v1Errors({ 404: 'not_found: no evidence record with this ID in the organization' }),
          },
        },
      },
      async (request, reply) =>
        replyRead({ system, answers, warm }, request, reply, getEvidence, {
          evidenceId: request.params.evidenceId,
          fields: parseList<EvidenceExpansion>(request.query.fields),
        }),
    );
  }
}
