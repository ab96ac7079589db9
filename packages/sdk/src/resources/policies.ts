// GET /v1/policies, GET /v1/policies/{policyId}
import type { GetPolicyQuery, ListPoliciesQuery } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions } from './operation.ts';

export class Policies {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** Every matching policy (no pagination). */
  list(query?: ListPoliciesQuery, options?: RequestOptions) {
    return send(this.#ctx, 'listPolicies', { query, options });
  }

  get(policyId: string, query?: GetPolicyQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getPolicy', { params: { policyId }, query, options });
  }
}
