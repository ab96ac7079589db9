// Evidence review (extensions, issue 26): POST /v1/evidence/{evidenceId}/approve,
// POST /v1/evidence/{evidenceId}/request_revision and PATCH /v1/evidence/{evidenceId}, and their
// plural aliases. Each answers the record as GET /v1/evidence/{evidenceId} does.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { approveEvidence, EVIDENCE_MOVES, requestEvidenceRevision, updateEvidence } from '../../../domain/evidence/review.ts';
import { RequestEvidenceRevisionBody, UpdateEvidenceBody } from '../../../domain/evidence/write-schema.ts';
import { EmptyMoveBody } from '../../../domain/artifacts/write-schema.ts';
import { moveGuards, WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { idParams } from '../../schemas/artifacts.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { EVIDENCE_PATHS } from './list.ts';
import { EvidenceDetail } from './schemas.ts';

const Params = idParams('evidenceId', 'An evidence ID of the caller’s organization.');
const from = (move: keyof typeof EVIDENCE_MOVES) => EVIDENCE_MOVES[move].map((s) => `\`${s}\``).join(', ');

const errors = (what: string) =>
  writeErrors(
    `validation_failed (details name the field; \`status\` when ${what} is not allowed from the record’s status, saying which moves are)`,
    'evidence record',
  );

const MOVES = [
  {
    move: 'approve',
    operationId: 'approveEvidence',
    guards: moveGuards,
    verb: approveEvidence,
    body: EmptyMoveBody,
    summary: 'Approve evidence waiting for approval',
    description: `Moves the record from ${from('approve')} to \`uploaded\`. No body (or \`{}\`).`,
  },
  {
    move: 'request_revision',
    operationId: 'requestEvidenceRevision',
    guards: writeGuards,
    verb: requestEvidenceRevision,
    body: RequestEvidenceRevisionBody,
    summary: 'Send evidence back for revision',
    description: `Moves the record from ${from('request_revision')} to \`needs_revision\`, with \`rejectionReason\`; sets \`revisionRequestedBy\` (the credential) and \`revisionRequestedOn\` (now).`,
  },
] as const;

export default function evidenceReviewRoutes(app: FastifyInstance, { system }: RouteDeps) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const base of EVIDENCE_PATHS) {
    const plural = base !== EVIDENCE_PATHS[0];
    const alias = (summary: string, path: string) => (plural ? `${summary} (plural alias of ${path})` : `${summary} (extension)`);
    // Every spelling of the path is one resource: the key's fingerprint names the record, not the path.
    const idempotency = (request: { idempotencyKey?: string }) => ({ key: request.idempotencyKey! });

    for (const m of MOVES) {
      typed.post(
        `${base}/:evidenceId/${m.move}`,
        {
          preValidation: m.guards('evidence'),
          schema: {
            operationId: plural ? `${m.operationId}Plural` : m.operationId,
            tags: ['evidence'],
            summary: alias(m.summary, `/v1/evidence/{evidenceId}/${m.move}`),
            description: `${m.description} Answers the record as GET does. Idempotent under \`Idempotency-Key\`.`,
            security: [{ bearerAuth: ['evidence:write'] }],
            headers: WriteHeaders,
            params: Params,
            body: m.body,
            response: { 200: Envelope(EvidenceDetail, 'The record after the move, as GET returns it.'), ...errors(m.move) },
          },
        },
        async (request, reply) =>
          replyWrite(system, request, reply, m.verb, {
            evidenceId: request.params.evidenceId,
            idempotency: idempotency(request),
            // validated against this move's body schema, the one its verb reads
            body: request.body as never,
          }),
      );
    }

    typed.patch(
      `${base}/:evidenceId`,
      {
        preValidation: writeGuards('evidence'),
        schema: {
          operationId: plural ? 'updateEvidencePlural' : 'updateEvidence',
          tags: ['evidence'],
          summary: alias('Change relevance or add external links to an evidence record', '/v1/evidence/{evidenceId}'),
          description:
            '`isRelevant: false` needs `notRelevantReason`; `true` clears it. `links` adds external links as attachments without a file; like an upload, they make the record `pending_approval` when it has approvers, otherwise `uploaded`. Answers the record as GET does. Idempotent under `Idempotency-Key`.',
          security: [{ bearerAuth: ['evidence:write'] }],
          headers: WriteHeaders,
          params: Params,
          body: UpdateEvidenceBody,
          response: { 200: Envelope(EvidenceDetail, 'The record after the update, as GET returns it.'), ...errors('a change') },
        },
      },
      async (request, reply) =>
        replyWrite(system, request, reply, updateEvidence, {
          evidenceId: request.params.evidenceId,
          idempotency: idempotency(request),
          body: request.body,
        }),
    );
  }
}
