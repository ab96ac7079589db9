// GET /v1/tests, GET /v1/tests/{testId}, POST /v1/tests/{testId}/results, POST /v1/tests/results/imports
// (a checker's report, streamed as the raw body like a scanner's file: ./vulnerabilities.ts)
import type { GetTestQuery, ImportTestResultsResponse, ListTestsQuery, RecordTestResultBody } from '../generated/api.ts';
import type { CheckFormat } from '../types.ts';
import { send, type ClientContext, type RequestOptions, type WithResponse, type WriteOptions } from './operation.ts';
import { sendImport, type ImportFile, type ImportOptions } from './vulnerabilities.ts';

export interface ImportTestResultsInput {
  /** the report's format: one of `CheckFormat`, generated from the service's document (docs/check-results.md) */
  format: CheckFormat;
  /**
   * What was checked (a cloud account, a cluster, a repository): a re-import of the scope replaces
   * the resources it reported before. Default: the scope the report names, if its format has one.
   */
  scope?: string;
  file: ImportFile;
  /** ask the service to take the file as a job (`Prefer: respond-async`) whatever its size; the call follows it all the same */
  respondAsync?: boolean;
}

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

  /**
   * Imports a checker's report (Prowler OCSF, a Kyverno policy report, Checkov, kube-bench, InSpec;
   * an extension) as the runs of the tests naming its checks: the file is streamed as the body, as
   * `vulnerabilities.import` sends a scanner's, with the same retries, idempotency and job
   * following (a 202 is followed to its result). Answers what the import did: the tests updated,
   * unchanged, older or ignored, and the checks no test names (`unmatched`).
   */
  async importResults(input: ImportTestResultsInput, options?: ImportOptions): Promise<WithResponse<ImportTestResultsResponse>> {
    return sendImport(
      this.#ctx,
      'importTestResults',
      input,
      options,
      'importResults needs { format, file }',
      'a CheckFormat: docs/check-results.md',
    );
  }
}
