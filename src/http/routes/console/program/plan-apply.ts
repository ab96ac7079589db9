// POST /console/api/program: an administrator's program document (the text of the file uploaded in
// the console), planned (`mode=plan`) or applied to their organization. The body is JSON holding
// the text, so the console's session and CSRF rules apply as to every console change; its size is
// bounded by PROGRAM_MAX_BYTES instead of the API's body limit. Problems answer 400 with their JSON
// pointer, line and column.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { programForAdmin } from '../../../../domain/program/console-door.ts';
import { ProgramPlan } from '../../../../domain/program/plan-schema.ts';
import { ServiceError } from '../../../../shared/errors.ts';
import { loadProgramInPool, type PooledProgram } from '../../../../workers/load-program-in-pool.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';

const Query = Type.Object(
  {
    mode: Type.Optional(
      Type.String({
        enum: ['plan', 'apply'],
        default: 'plan',
        description: '`plan` (the default) writes nothing; `apply` applies, all or nothing.',
      }),
    ),
    prune: Type.Optional(Type.Boolean({ description: 'Also delete the records of the kinds the document covers that it does not list.' })),
  },
  { additionalProperties: false },
);

const Body = Type.Object(
  {
    text: Type.String({ minLength: 1, description: 'The document: YAML or JSON text, at most PROGRAM_MAX_BYTES.' }),
    fileName: Type.Optional(
      Type.String({ maxLength: 255, description: 'The uploaded file’s name: `.json` reads as JSON, anything else as YAML.' }),
    ),
  },
  { additionalProperties: false },
);

export default function consoleProgramRoute(app: FastifyInstance, { system, config, workers }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/program',
    {
      config: { console: 'session' },
      // the text is one JSON string: the entry count stays tiny; only its length needs room
      bodyLimit: config.program.maxBytes + 64 * 1024,
      schema: {
        operationId: 'consoleProgram',
        tags: ['console'],
        summary: 'Plan or apply a program document to the organization',
        description:
          'Extension (issue 25): the console’s upload of a program document. `mode=plan` answers what an apply would do; `mode=apply` applies it in one transaction and records `program.apply` in the audit log when it changes something.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        querystring: Query,
        body: Body,
        response: {
          200: Envelope(ProgramPlan, 'The plan: what the apply did, or with mode=plan what it would do.'),
          ...consoleErrors({ 400: 'validation_failed: each problem of the document with its JSON pointer, line and column' }),
        },
      },
    },
    async (request) => {
      const ctx = adminContextOf(system, request);
      const fileName = request.body.fileName ?? 'document';
      let loaded: PooledProgram | undefined;
      try {
        if (Buffer.byteLength(request.body.text) > config.program.maxBytes) {
          throw new ServiceError('validation_failed', 'The program document is too large.', [
            { field: 'text', message: `is over the limit of ${config.program.maxBytes} bytes (PROGRAM_MAX_BYTES)` },
          ]);
        }
        // Parsed and checked in a worker thread, off the event loop (src/workers/program-document.ts).
        loaded = await loadProgramInPool(workers, {
          text: request.body.text,
          file: fileName,
          format: fileName.toLowerCase().endsWith('.json') ? 'json' : 'yaml',
          limits: config.program,
          check: { prune: Boolean(request.query.prune) },
        });
        const plan = await programForAdmin({
          ctx,
          input: {
            document: loaded.value,
            checked: loaded.checked,
            prune: Boolean(request.query.prune),
            mode: request.query.mode === 'apply' ? 'apply' : 'plan',
            source: fileName,
          },
        });
        return envelope(request, plan);
      } catch (error) {
        const placed = loaded ? await loaded.withPlaces(error) : error;
        if (!(placed instanceof ServiceError)) throw placed;
        // the file is the one uploaded: its name adds nothing
        throw new ServiceError(
          placed.code,
          placed.message,
          placed.details.map((d) => {
            if (typeof d !== 'object' || d === null || !('file' in d)) return d;
            const { file: _file, ...rest } = d as Record<string, unknown>;
            return rest as typeof d;
          }),
        );
      } finally {
        // the document's packed lists freed now, not at the next full collection (src/workers/)
        loaded?.release();
      }
    },
  );
}
