// POST /v1/vulnerabilities/imports (an extension, issue 27): a scanner's file, streamed into the
// import pipeline (domain/vulnerabilities/import.ts) without being held. The file is either the
// raw request body (any content type but multipart; `format` and `scope` in the query) or the
// `file` part of a multipart/form-data body whose text fields `format` and `scope` come first.
// The body's handling is shared with the other import (../../import-body.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { importVulnerabilities } from '../../../domain/vulnerabilities/import.ts';
import { DEFAULT_IMPORT_MAX_BYTES } from '../../../config.ts';
import { formatNamesText, unknownFormatIssue } from '../../../formats/scanners/formats.ts';
import { scannerFormatsInPool } from '../../../workers/scan-in-pool.ts';
import { formatTitles, ImportFormat, ImportQuery, ImportResult, ImportScope, Job } from '../../schemas/scanner-imports.ts';
import { writeGuards } from '../../idempotency.ts';
import { ImportHeaders, importHandler, registerUnparsed } from '../../import-body.ts';
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

export default function importVulnerabilitiesRoute(app: FastifyInstance, deps: RouteDeps) {
  registerUnparsed(app, (scope) => registerImport(scope, deps));
}

function registerImport(app: FastifyInstance, { system, workers }: RouteDeps) {
  // The door looks the format up in its registry and hands it to the domain, its files parsed in
  // the worker threads (src/workers/scan-in-pool.ts) so the event loop goes on answering others.
  const find = scannerFormatsInPool(workers);
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
    importHandler(system, PATH, { names: formatNamesText, find, unknown: unknownFormatIssue }, importVulnerabilities),
  );
}
