// GET /v1/controls, GET/PATCH /v1/controls/{controlId}
import type { GetControlQuery, ListControlsQuery, UpdateControlBody } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions, type WriteOptions } from './operation.ts';

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

  /**
   * Changes the control's scope or assignees (extension): `controlScope` `out_of_scope` needs an
   * `outOfScopeReason`; `assigneeEmails` replaces the assignees (the first is primary). Answers the
   * control as `get` does. Idempotent: the same `idempotencyKey` (generated when not given) replays.
   */
  update(controlId: string, body: UpdateControlBody, options?: WriteOptions) {
    return send(this.#ctx, 'updateControl', { params: { controlId }, json: body, options });
  }
}
