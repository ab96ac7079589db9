// GET /v1/controls, GET /v1/controls/{controlId}
import type { GetControlQuery, ListControlsQuery } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions } from './operation.ts';

export class Controls {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** Every matching control (no pagination). With `frameworkIds`, status is computed over those frameworks only. */
  list(query?: ListControlsQuery, options?: RequestOptions) {
    return send(this.#ctx, 'listControls', { query, options });
  }

  get(controlId: string, query?: GetControlQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getControl', { params: { controlId }, query, options });
  }
}
