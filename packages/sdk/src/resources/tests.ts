// GET /v1/tests, GET /v1/tests/{testId}
import type { GetTestQuery, ListTestsQuery } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions } from './operation.ts';

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
}
