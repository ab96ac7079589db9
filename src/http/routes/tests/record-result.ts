// POST /v1/tests/{testId}/results (extension)
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { recordTestResult } from '../../../domain/tests/record-result.ts';
import { MAX_RESULT_JSON_ENTRIES, RecordTestResultBody } from '../../../domain/tests/write-schema.ts';
import { WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
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
          ...writeErrors('validation_failed (details name the field; `status` when the test is ignored)', 'test'),
        },
      },
    },
    async (request, reply) =>
      replyWrite(system, request, reply, recordTestResult, {
        testId: request.params.testId,
        idempotency: { key: request.idempotencyKey! },
        body: request.body,
      }),
  );
}
