// GET /v1/tests, GET /v1/tests/{testId}, POST /v1/tests/{testId}/results
import type { GetTestQuery, ListTestsQuery, RecordTestResultBody } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions, type WriteOptions } from './operation.ts';

export class Tests {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** Every matching automated and cloud test (no pagination). */
  list(query?: ListTestsQuery, options?: RequestOptions) {
    return send(this.#ctx, 'listTests', { query, options });
  }

  /** `resourceStatus` filters the flagged resources (default `fix_required`). */
  get(testId: string, query?: GetTestQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getTest', { params: { testId }, query, options });
  }

  /**
   * Pushes one run of a test (extension): its `status` (`passing` or `fix_required`), optional
   * `scannedAt` and the `resources` it checked, which replace the test's. Answers the test as `get`
   * does. Idempotent: the same `idempotencyKey` (generated when not given) replays the answer.
   */
  recordResult(testId: string, body: RecordTestResultBody, options?: WriteOptions) {
    return send(this.#ctx, 'recordTestResult', { params: { testId }, json: body, options });
  }
}
