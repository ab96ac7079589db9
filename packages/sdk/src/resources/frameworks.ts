// GET /v1/frameworks
import type { ListFrameworksQuery } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions } from './operation.ts';

export class Frameworks {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** Every framework (no pagination), with its computed complianceProgress. */
  list(query?: ListFrameworksQuery, options?: RequestOptions) {
    return send(this.#ctx, 'listFrameworks', { query, options });
  }
}
