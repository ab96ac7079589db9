// PUT /v1/program: plan (`?mode=plan`) or apply a program document to the credential's own
// organization (an extension, issue 25; docs/program-documents.md, "Over HTTP"). The body is YAML
// or JSON (Content-Type), or an OSCAL catalog in JSON (`?source=oscal-catalog`), read as bytes in
// this route's own plugin scope within PROGRAM_MAX_BYTES (src/http/program-body.ts). A document
// that does not validate answers 400 with every problem in `details`: `field` the JSON pointer,
// and `line` and `column` in the body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { bodySha256, programForCredential, refuseWithoutWriteScope } from '../../../domain/program/credential-door.ts';
import { ProgramDocument } from '../../../domain/program/document-schema.ts';
import { ProgramPlan } from '../../../domain/program/plan-schema.ts';
import { ServiceError, validationFailed } from '../../../shared/errors.ts';
import { RecordKey } from '../../../domain/kinds/fields.ts';
import { frameworkFromCatalog } from '../../../formats/oscal/catalog-import.ts';
import { PROGRAM_FORMAT_VERSION } from '../../../domain/program/document-schema.ts';
import { loadProgramInPool, type PooledProgram } from '../../../workers/load-program-in-pool.ts';
import { PROGRAM_SCHEMA_PATH } from '../../../formats/program/schema-file.ts';
import { requestContext } from '../../plugins/auth.ts';
import { idempotencyKeyOf, idempotencyOf, sendOutcome } from '../../idempotency.ts';
import { formatOfContentType, type RawBody, registerProgramBody } from '../../program-body.ts';
import { validatorCompiler } from '../../validation.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { booleanParam } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';

const Query = Type.Object(
  {
    mode: Type.Optional(
      Type.String({
        enum: ['apply', 'plan'],
        default: 'apply',
        description: '`plan`: answer what an apply would do and write nothing (no Idempotency-Key needed). Default `apply`.',
      }),
    ),
    prune: Type.Optional(
      booleanParam(
        'Also delete the records of the kinds the document covers that it does not list; never with `source=oscal-catalog`. Default false.',
      ),
    ),
    source: Type.Optional(
      Type.String({
        enum: ['document', 'oscal-catalog'],
        default: 'document',
        description:
          '`oscal-catalog`: the body is an OSCAL 1.x catalog in JSON, read as a document holding that one framework (docs/oscal.md).',
      }),
    ),
    frameworkKey: Type.Optional(
      Type.String({
        ...RecordKey,
        description: "With `source=oscal-catalog`: the framework's key (default: a slug of the catalog's title).",
      }),
    ),
  },
  { additionalProperties: false },
);

const Headers = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._~-]{1,128}$',
      description:
        'Required to apply (not to plan). 1-128 letters, digits, `.`, `_`, `~`, `-`. Scoped to the credential and bound to the SHA-256 of the body and the query; a retry within 24 hours replays the first answer.',
    }),
  ),
});

const BODY_DESCRIPTION =
  `A program document (its JSON Schema: \`GET ${PROGRAM_SCHEMA_PATH}\`), as YAML (\`application/yaml\`) or JSON (\`application/json\`); ` +
  'or, with `source=oscal-catalog`, an OSCAL 1.x catalog in JSON. At most PROGRAM_MAX_BYTES (default 64 MiB).';

const isTrue = (flag: string | undefined) => flag === 'true' || flag === '1';

/**
 * The document the body holds, and how to place a problem in it: parsed in a worker thread
 * (src/workers/program-document.ts), so the event loop goes on answering other requests.
 */
async function documentOf(
  request: FastifyRequest<{ Querystring: Static<typeof Query> }>,
  bytes: Buffer,
  { config, workers }: Pick<RouteDeps, 'config' | 'workers'>,
): Promise<PooledProgram> {
  const source = request.query.source ?? 'document';
  const format = formatOfContentType(request.headers['content-type']);
  const body = { bytes, file: 'body', format, limits: config.program };
  // checked in the worker too, so the transaction does not (precheck.ts)
  if (source === 'document') return loadProgramInPool(workers, { ...body, check: { prune: isTrue(request.query.prune) } });
  if (format !== 'json') {
    throw validationFailed([{ field: 'Content-Type', message: 'must be application/json for an OSCAL catalog' }]);
  }
  if (isTrue(request.query.prune)) {
    throw validationFailed([
      { field: 'prune', message: 'cannot be true with source=oscal-catalog: pruning would delete the other frameworks' },
    ]);
  }
  const catalog = await loadProgramInPool(workers, body);
  let framework;
  try {
    framework = frameworkFromCatalog(catalog.value, { key: request.query.frameworkKey });
  } catch (error) {
    throw await catalog.withPlaces(error);
  }
  return {
    value: { version: PROGRAM_FORMAT_VERSION, frameworks: [framework] },
    withPlaces: async (error) => error,
    release: () => catalog.release(),
  };
}

/** Problems with their line and column in the body (the file name is always the body: left out). */
async function placed(error: unknown, loaded: PooledProgram | undefined): Promise<unknown> {
  const withPlace = loaded ? await loaded.withPlaces(error) : error;
  if (!(withPlace instanceof ServiceError)) return withPlace;
  const details = withPlace.details.map((d) => {
    if (typeof d !== 'object' || d === null || !('file' in d)) return d;
    const { file: _file, ...rest } = d as Record<string, unknown>;
    return rest as typeof d;
  });
  return new ServiceError(withPlace.code, withPlace.message, details);
}

export default function applyProgramRoute(app: FastifyInstance, { system, config, workers }: RouteDeps) {
  app.register(async (scope) => {
    registerProgramBody(scope, config.program.maxBytes);
    scope.withTypeProvider<TypeBoxTypeProvider>().put(
      '/v1/program',
      {
        config: { accepts: 'application/yaml or application/json' },
        // Before a byte of the body is parsed: a credential that can write nothing is refused at
        // once (issue 36). The body it left unread is settled like every other one
        // (src/http/plugins/unread-body.ts): discarded unparsed within its bound, the connection
        // kept, so a client still sending does not lose the answer to a reset.
        preParsing: async (request, _reply, payload) => {
          if (request.actor) refuseWithoutWriteScope(request.actor);
          return payload;
        },
        // The body schema documents the document; the bytes are parsed and checked by the domain.
        validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : validatorCompiler({ schema, httpPart } as never)),
        schema: {
          operationId: 'applyProgram',
          tags: ['program'],
          summary: 'Plan or apply a program document to the organization (extension)',
          description:
            'Extension (issue 25): a declarative upsert of the records the document lists, all or nothing, in one transaction; records it does not list stay unless `prune=true` (only kinds the document covers). ' +
            'Answers the plan it carried out (or, with `mode=plan`, would carry out): counts per kind, changed fields before and after, deletions, and the controls and framework percentages the change moves. ' +
            'Applying the same document again changes nothing. Needs the write scope of every kind the document holds (403 names every missing one). ' +
            `A document that does not validate answers 400 with every problem in \`details\`: \`field\` is its JSON pointer, \`line\` and \`column\` its place in the body. JSON Schema of the body: \`GET ${PROGRAM_SCHEMA_PATH}\`.`,
          security: [
            { bearerAuth: ['framework:write', 'control:write', 'policy:write', 'evidence:write', 'test:write', 'vulnerability:write'] },
          ],
          querystring: Query,
          headers: Headers,
          body: {
            description: BODY_DESCRIPTION,
            content: {
              'application/yaml': { schema: ProgramDocument },
              'application/json': { schema: ProgramDocument },
            },
          } as never,
          response: {
            200: Envelope(
              ProgramPlan,
              'The plan: what the apply did, or with mode=plan what it would do (`changed` says whether anything changes).',
            ),
            ...v1Errors({
              400: 'validation_failed (details name each problem by JSON pointer, with line and column), or idempotency_key_required',
              403: 'forbidden (the message names every missing write scope) or plan_restricted',
              409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
            }),
          },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(system, request);
        const mode = request.query.mode === 'plan' ? 'plan' : 'apply';
        // A key given is checked at once; a missing one is refused after the scopes (403 comes first, as for every write).
        const keyHeader = request.headers['idempotency-key'];
        if (mode === 'apply' && keyHeader !== undefined) request.idempotencyKey = idempotencyKeyOf(keyHeader);
        const bytes = (request.body as RawBody | undefined)?.bytes;
        if (!bytes || bytes.length === 0)
          throw validationFailed([{ field: 'body', message: 'must be a program document' }], 'The body is empty.');
        // hashed first: the bytes move to the worker thread that parses them (src/workers/)
        const sha256 = bodySha256(bytes);
        let loaded: PooledProgram | undefined;
        try {
          loaded = await documentOf(request, bytes, { config, workers });
          const outcome = await programForCredential({
            ctx,
            input: {
              document: loaded.value,
              checked: loaded.checked,
              prune: isTrue(request.query.prune),
              mode,
              idempotency: request.idempotencyKey !== undefined ? idempotencyOf(request, () => '/v1/program') : undefined,
              body: {
                sha256,
                source: request.query.source === 'oscal-catalog' ? 'oscal-catalog' : 'document',
                frameworkKey: request.query.frameworkKey,
              },
            },
          });
          return sendOutcome(request, reply, outcome);
        } catch (error) {
          throw await placed(error, loaded);
        } finally {
          // the body and the document's packed lists freed now, not at the next full collection
          loaded?.release();
        }
      },
    );
  });
}
