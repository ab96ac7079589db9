// POST /v1/tests/{testId}/results (extension)
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { recordTestResult } from '../../../domain/tests/record-result.ts';
import { MAX_RESULT_JSON_ENTRIES, RecordTestResultBody } from '../../../domain/tests/write-schema.ts';
import { requestContext } from '../../plugins/auth.ts';
import { sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { idParams } from '../../schemas/artifacts.ts';
import type { RouteDeps } from '../deps.ts';
import { TestDetail } from './schemas.ts';

const Params = idParams('testId', 'ID of an automated or a cloud test.');

export default function recordTestResultRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/tests/:testId/results',
    {
      preValidation: writeGuards('test'),
      config: { maxJsonEntries: MAX_RESULT_JSON_ENTRIES },
      schema: {
        operationId: 'recordTestResult',
        tags: ['tests'],
        summary: 'Push a run of a test: its status and the resources it checked (extension)',
        description:
          'A CI job or a scanner records one run. The test’s status, `lastScannedOn`, resources and `testHistory` follow; the pushed resources replace the test’s. A passing test whose observability integration is failing reads `affected`; an ignored test takes no result (400 naming `status`). Records `test.status_changed`, `test.updated` and the computed `control.status_changed` / `framework.progress_changed` events in the same transaction. Answers the test as GET does. Idempotent under `Idempotency-Key` like the other writes.',
        security: [{ bearerAuth: ['test:write'] }],
        headers: WriteHeaders,
        params: Params,
        body: RecordTestResultBody,
        response: {
          200: Envelope(TestDetail, 'The test after the run, as GET returns it (default fields).'),
          ...v1Errors({
            400: 'validation_failed (details name the field; `status` when the test is ignored), or idempotency_key_required',
            404: 'not_found: no test with this ID in the organization',
            409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const outcome = await recordTestResult({
        ctx: requestContext(system, request),
        input: { testId: request.params.testId, idempotency: { key: request.idempotencyKey! }, body: request.body },
      });
      return sendOutcome(request, reply, outcome);
    },
  );
}
