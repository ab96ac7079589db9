// POST /v1/vulnerabilities/imports (an extension, issue 27): a scanner's file, streamed into the
// import pipeline (domain/vulnerabilities/import.ts) without being held. The file is either the
// raw request body (any content type but multipart; `format` and `scope` in the query) or the
// `file` part of a multipart/form-data body whose text fields `format` and `scope` come first.
// The route lives in its own plugin scope so that only it leaves every body unparsed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ServiceError, validationFailed } from '../../../shared/errors.ts';
import type { UploadPart } from '../../../domain/evidence/upload.ts';
import { importVulnerabilities } from '../../../domain/vulnerabilities/import.ts';
import { DEFAULT_IMPORT_MAX_BYTES } from '../../../domain/vulnerabilities/import-schema.ts';
import { formatNamesText, scannerFormat, unknownFormatIssue } from '../../../formats/scanners/formats.ts';
import { formatTitles, ImportFormat, ImportQuery, ImportResult, ImportScope, Job } from '../../schemas/scanner-imports.ts';
import { requestContext } from '../../plugins/auth.ts';
import { idempotencyOf, sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { multipartParts } from '../../multipart.ts';
import { validatorCompiler } from '../../validation.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';

const PATH = '/v1/vulnerabilities/imports';

/** The query: `format` is required with a raw body; a multipart body may send both as fields instead. */
const Query = Type.Partial(ImportQuery, { additionalProperties: false });

/** For the OpenAPI document only: the multipart form (a raw body is the file itself). */
const ImportForm = Type.Object({
  format: Type.Optional(ImportFormat),
  scope: Type.Optional(ImportScope),
  file: Type.String({ format: 'binary', description: 'The scanner’s file, after the text fields.' }),
});

const ImportHeaders = Type.Object({
  ...WriteHeaders.properties,
  prefer: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'Optional. `respond-async` (RFC 7240): import as a job (202) whatever the file’s size.',
    }),
  ),
});

/** `Prefer: respond-async` (RFC 7240), among other preferences, in one header or several. */
function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((value) => value.split(',').some((pref) => /^\s*respond-async\s*(?:;|$)/i.test(pref)));
}

const incomplete = () =>
  validationFailed([{ field: 'body', message: 'is not complete: the request ended before the file did' }], 'The body ended early.');

/** The body's bytes; a body cut short (the client went away) is refused like a cut multipart body. */
async function* bytesOf(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* source;
  } catch (err) {
    throw err instanceof ServiceError ? err : incomplete();
  }
}

interface FileInput {
  format?: string;
  scope?: string;
  body: AsyncIterable<Uint8Array>;
  /** ends the multipart reading when the import stops early */
  done?: () => Promise<unknown>;
}

/** The text fields, then the `file` part's bytes, then nothing more. */
async function multipartInput(request: FastifyRequest): Promise<FileInput> {
  const parts = multipartParts(request.raw, { files: 1, fields: 3, fieldBytes: 1024 })[Symbol.asyncIterator]();
  const done = () => parts.return(undefined);
  const fields: Record<string, string> = {};
  let file: (UploadPart & { kind: 'file' }) | undefined;
  try {
    while (!file) {
      const step = await parts.next();
      if (step.done) break;
      const part = step.value;
      if (part.kind === 'file') {
        if (part.name !== 'file')
          throw validationFailed([
            { field: part.name || 'body', message: 'is not an accepted part; send the scanner file in a part named "file"' },
          ]);
        file = part;
      } else {
        if (part.name !== 'format' && part.name !== 'scope')
          throw validationFailed([{ field: part.name || 'body', message: 'is not an accepted part (format, scope, file)' }]);
        if (part.truncated) throw validationFailed([{ field: part.name, message: 'is too long' }]);
        if (fields[part.name] !== undefined) throw validationFailed([{ field: part.name, message: 'must be given once' }]);
        fields[part.name] = part.value;
      }
    }
  } catch (err) {
    await done();
    throw err;
  }
  if (!file) {
    await done();
    throw validationFailed([
      { field: 'file', message: 'is required: send the scanner file in a part named "file", after format and scope' },
    ]);
  }
  const stream = file.stream;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield* bytesOf(stream);
    const rest = await parts.next();
    if (!rest.done)
      throw validationFailed([
        { field: rest.value.name || 'body', message: 'is not accepted after the file: send format and scope first, and one file' },
      ]);
  }
  return { format: fields.format, scope: fields.scope, body: body(), done };
}

export default function importVulnerabilitiesRoute(app: FastifyInstance, deps: RouteDeps) {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Leave every body unread: the handler streams it into the parser.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    registerImport(scope, deps);
  });
}

function registerImport(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATH,
    {
      preValidation: writeGuards('vulnerability'),
      // The body schema documents the form; the stream is read by the import itself.
      validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : validatorCompiler({ schema, httpPart } as never)),
      schema: {
        operationId: 'importVulnerabilities',
        tags: ['vulnerabilities'],
        summary: 'Import a scanner’s findings (extension)',
        description:
          `Reads a scanner’s file (${formatTitles()}; docs/scanner-formats.md) as it streams, and brings the findings of its scope and source up to date in one transaction: ` +
          'new ones are created; known ones are updated when something changed and left unwritten (no event) when nothing did; findings of the scope and source that the file no longer reports are closed, and a closed one reported again reopens. ' +
          'Statuses a person set (acknowledged, ignored, risk) are kept; the tool’s suppressions and VEX not_affected/false_positive make a finding ignored, VEX fixed closes it. ' +
          'The file is the raw body (any content type but multipart; `format` and `scope` in the query), or the `file` part of a multipart/form-data body after its `format` and `scope` fields. ' +
          `At most IMPORT_MAX_BYTES (default ${DEFAULT_IMPORT_MAX_BYTES} bytes), refused while it streams. A malformed file, or one not of the named format, answers 400 validation_failed with a detail naming the JSON pointer (for a malformed XML file, its line and column); nothing is written. ` +
          'Idempotent under `Idempotency-Key`: the same format, scope and file (by SHA-256) replays the answer. ' +
          'A file larger than IMPORT_JOB_THRESHOLD_BYTES (default 8 MiB), or any file sent with `Prefer: respond-async`, is imported as a job: the answer is `202 Accepted` with the job and `Location: /v1/jobs/{jobId}`, which gives the same result (or error) once it has run; the key then replays that 202. A job checks the whole file first (a refused file writes nothing), then writes in slices of about 200 ms, each its own transaction, so other writes go through meanwhile.',
        security: [{ bearerAuth: ['vulnerability:write'] }],
        consumes: ['application/octet-stream', 'multipart/form-data'],
        headers: ImportHeaders,
        querystring: Query,
        body: ImportForm,
        response: {
          200: Envelope(ImportResult, 'What the import did: counts, and the IDs of the findings it changed.'),
          202: Envelope(Job, 'The import was accepted as a job: follow it at `Location` (GET /v1/jobs/{jobId}).'),
          ...v1Errors({
            400: 'validation_failed (details name format, scope, file, body, or the JSON pointer of the file’s problem), or idempotency_key_required',
            409: 'idempotency_key_reused (same key, different format, scope or file) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(system, request);
      const multipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
      // Not destroyed when the import stops early: the refusal must still be answered on it.
      const file: FileInput = multipart
        ? await multipartInput(request)
        : { body: bytesOf(request.raw.iterator({ destroyOnReturn: false })) };
      try {
        const query = request.query;
        for (const field of ['format', 'scope'] as const) {
          if (file[field] !== undefined && query[field] !== undefined && file[field] !== query[field])
            throw validationFailed([{ field, message: 'is given in the query and in the form with different values; send it once' }]);
        }
        const name = file.format ?? query.format;
        if (name === undefined) throw validationFailed([{ field: 'format', message: `is required (${formatNamesText()})` }]);
        // The door looks the format up (src/formats/scanners/formats.ts) and hands it to the domain.
        const format = scannerFormat(name);
        if (!format) throw validationFailed([unknownFormatIssue(name)]);
        const outcome = await importVulnerabilities({
          ctx,
          input: {
            format,
            scope: file.scope ?? query.scope,
            body: file.body,
            idempotency: idempotencyOf(request, () => PATH),
            respondAsync: prefersAsync(request.headers.prefer),
          },
        });
        return sendOutcome(request, reply, outcome, (job) => `/v1/jobs/${(job as { id: string }).id}`);
      } finally {
        await file.done?.();
      }
    },
  );
}
