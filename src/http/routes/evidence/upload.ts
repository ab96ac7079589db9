// POST /v1/evidence/{evidenceId}/attachments, and its plural alias. The body is multipart and is
// never parsed up front: the handler streams its parts through the domain into the blob store.
// The routes live in their own plugin scope so only they accept multipart/form-data, and only it.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_FILES, MAX_NOTE_LENGTH, uploadAttachments } from '../../../domain/evidence/upload.ts';
import { ACCEPTED_EXTENSIONS } from '../../../domain/evidence/file-types.ts';
import { UploadResult } from '../../../domain/evidence/write-schema.ts';
import { idempotencyOf, WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { multipartParts } from '../../multipart.ts';
import { validatorCompiler } from '../../validation.ts';
import { idParams } from '../../schemas/artifacts.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { EVIDENCE_PATHS } from './list.ts';

const Params = idParams('evidenceId', 'An evidence ID of the caller’s organization.');

/** For the OpenAPI document only: the body is read as a stream, not validated as an object. */
const UploadForm = Type.Object({
  files: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    maxItems: MAX_FILES,
    description: `One part named \`files\` per file, at most ${MAX_FILES}, together at most 100 MB (104857600 bytes). Accepted extensions: ${ACCEPTED_EXTENSIONS.join(', ')}; .numbers and .pages must be zip packages.`,
  }),
  evidenceDate: Type.String({ pattern: '^\\d+$', description: 'Epoch ms (a numeric string); not in the future.' }),
  note: Type.Optional(
    Type.String({
      maxLength: MAX_NOTE_LENGTH,
      description: `Stored with every file of the upload; at most ${MAX_NOTE_LENGTH} characters.`,
    }),
  ),
});

export default function uploadAttachmentsRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Leave the stream unread: the handler consumes it part by part.
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
    for (const base of EVIDENCE_PATHS) registerUpload(scope, deps, base);
  });
}

function registerUpload(app: FastifyInstance, { system }: RouteDeps, base: string) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    `${base}/:evidenceId/attachments`,
    {
      preValidation: writeGuards('evidence'),
      config: { accepts: 'multipart/form-data' },
      // The body schema documents the form; the stream is checked part by part by the domain.
      validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : validatorCompiler({ schema, httpPart } as never)),
      schema: {
        operationId: base === EVIDENCE_PATHS[0] ? 'uploadEvidenceAttachments' : 'uploadEvidenceAttachmentsPlural',
        tags: ['evidence'],
        summary:
          base === EVIDENCE_PATHS[0]
            ? 'Upload files to an evidence record'
            : 'Upload files (plural alias of /v1/evidence/{evidenceId}/attachments)',
        description:
          'multipart/form-data. Files are streamed to storage, never held whole in memory. Afterwards the evidence is `pending_approval` when it has approvers, otherwise `uploaded`, and `modifiedOn` is now. ' +
          'Refusals (type, count, size, the organization’s attachment storage quota, date) answer 400 validation_failed naming `files` or `evidenceDate`; nothing is recorded. Idempotent under `Idempotency-Key`: a retry with the same parts (any boundary) replays.',
        security: [{ bearerAuth: ['evidence:write'] }],
        consumes: ['multipart/form-data'],
        headers: WriteHeaders,
        params: Params,
        body: UploadForm,
        response: {
          201: Envelope(UploadResult, 'The files were stored and recorded: the evidence record and its new modifiedOn.'),
          ...writeErrors('validation_failed (details name files, evidenceDate, note or body)', 'evidence record', 'parts'),
        },
      },
    },
    async (request, reply) =>
      replyWrite(system, request, reply, uploadAttachments, {
        evidenceId: request.params.evidenceId,
        // the singular path for both spellings: the alias names the same resource
        idempotency: idempotencyOf(request, (id) => `${EVIDENCE_PATHS[0]}/${id}/attachments`),
        parts: multipartParts(request.raw, { files: MAX_FILES, fields: 4, fieldBytes: 4 * MAX_NOTE_LENGTH + 64 }),
      }),
  );
}
