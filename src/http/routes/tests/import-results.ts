// POST /v1/tests/results/imports (an extension, issue 38): a checker's report (Prowler, Kyverno,
// Checkov, kube-bench, InSpec) as the runs of the tests naming its checks. The body is a scanner
// import's (../../import-body.ts: raw, or multipart with `format` and `scope` first), and so are
// the idempotency and job rules (domain/tests/import-results.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { importTestResults } from '../../../domain/tests/import-results.ts';
import { DEFAULT_IMPORT_MAX_BYTES } from '../../../config.ts';
import { checkFormatNamesText, unknownCheckFormatIssue } from '../../../formats/checks/formats.ts';
import { checkFormatsInPool } from '../../../workers/check-in-pool.ts';
import {
  CheckImportFormat,
  CheckImportQuery,
  CheckImportScope,
  checkFormatTitles,
  TestResultsImport,
} from '../../schemas/check-imports.ts';
import { Job } from '../../schemas/scanner-imports.ts';
import { writeGuards } from '../../idempotency.ts';
import { ImportHeaders, importHandler, registerUnparsed } from '../../import-body.ts';
import { validatorCompiler } from '../../validation.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';

const PATH = '/v1/tests/results/imports';

/** For the OpenAPI document only: the multipart form (a raw body is the file itself). */
const ImportForm = Type.Object({
  format: Type.Optional(CheckImportFormat),
  scope: Type.Optional(CheckImportScope),
  file: Type.String({ format: 'binary', description: 'The checker’s report, after the text fields.' }),
});

export default function importTestResultsRoute(app: FastifyInstance, deps: RouteDeps) {
  registerUnparsed(app, (scope) => registerImport(scope, deps));
}

function registerImport(app: FastifyInstance, { system, workers }: RouteDeps) {
  // The door looks the format up in its registry and hands it to the domain, its reports parsed in
  // the worker threads (src/workers/check-in-pool.ts) so the event loop goes on answering others.
  const find = checkFormatsInPool(workers);
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PATH,
    {
      preValidation: writeGuards('test'),
      // The body schema documents the form; the stream is read by the import itself.
      validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : validatorCompiler({ schema, httpPart } as never)),
      schema: {
        operationId: 'importTestResults',
        tags: ['tests'],
        summary: 'Import a checker’s report as the runs of the tests naming its checks (extension)',
        description:
          `Reads a checker’s report (${checkFormatTitles()}; docs/check-results.md). A test names the checks it is made of (\`checks\`, \`<tool>:<id>\`, in the program document); each test naming a check the report has results for takes the report as its run, as a pushed result (POST /v1/tests/{testId}/results) does: ` +
          'its flagged resources are the resources its checks’ results name (one per resource, `fix_required` when a check fails there, `ignored` when the tool muted the failure, else `passing`), its status `fix_required` when one of them fails, else `passing`; `lastScannedOn` is the report’s time (else now) and the run joins `testHistory`; `test.status_changed`, `test.updated`, `control.status_changed` and `framework.progress_changed` are recorded in the same transaction. ' +
          'A re-import of a scope replaces the resources that scope reported before (a resource it no longer reports leaves the test) and keeps other scopes’; a test whose results did not change is not written (no event, no data version moved). Checks no test names are counted and listed in `unmatched`. ' +
          'The file is the raw body (any content type but multipart; `format` and `scope` in the query), or the `file` part of a multipart/form-data body after its `format` and `scope` fields. ' +
          `At most IMPORT_MAX_BYTES (default ${DEFAULT_IMPORT_MAX_BYTES} bytes). A malformed file, or one not of the named format, answers 400 validation_failed with a detail naming the JSON pointer; nothing is written. ` +
          'Idempotent under `Idempotency-Key`: the same format, scope and file (by SHA-256) replays the answer. ' +
          'A file larger than IMPORT_JOB_THRESHOLD_BYTES (default 8 MiB), or any file sent with `Prefer: respond-async`, is imported as a job (kind `tests.importResults`): the answer is `202 Accepted` with the job and `Location: /v1/jobs/{jobId}`, which gives the same result (or error) once it has run.',
        security: [{ bearerAuth: ['test:write'] }],
        consumes: ['application/octet-stream', 'multipart/form-data'],
        headers: ImportHeaders,
        querystring: CheckImportQuery,
        body: ImportForm,
        response: {
          200: Envelope(TestResultsImport, 'What the import did: the tests it updated, and the checks no test names.'),
          202: Envelope(Job, 'The import was accepted as a job: follow it at `Location` (GET /v1/jobs/{jobId}).'),
          ...v1Errors({
            400: 'validation_failed (details name format, scope, file, body, or the JSON pointer of the file’s problem), or idempotency_key_required',
            409: 'idempotency_key_reused (same key, different format, scope or file) or idempotency_request_in_progress',
          }),
        },
      },
    },
    importHandler(system, PATH, { names: checkFormatNamesText, find, unknown: unknownCheckFormatIssue }, importTestResults),
  );
}
