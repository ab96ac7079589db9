// GET /v1/policies, GET /v1/policies/{policyId}, and the lifecycle extensions: POST …/submit,
// …/approve, …/publish, …/request_review and PATCH /v1/policies/{policyId}
import type { GetPolicyQuery, ListPoliciesQuery, PublishPolicyBody, UpdatePolicyBody } from '../generated/api.ts';
import { send, type ClientContext, type RequestOptions, type WriteOptions } from './operation.ts';

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

  /** Submits for approval: `pending_approval` when the policy has approvers, else `draft_approved`. Extension. */
  submit(policyId: string, options?: WriteOptions) {
    return send(this.#ctx, 'submitPolicy', { params: { policyId }, json: {}, options });
  }

  /** `pending_approval` → `draft_approved`. Extension. */
  approve(policyId: string, options?: WriteOptions) {
    return send(this.#ctx, 'approvePolicy', { params: { policyId }, json: {}, options });
  }

  /** `draft_approved` → `published`, as a new version (`versionName`, or the next minor version). Extension. */
  publish(policyId: string, body: PublishPolicyBody = {}, options?: WriteOptions) {
    return send(this.#ctx, 'publishPolicy', { params: { policyId }, json: body, options });
  }

  /** Marks the policy for review (→ `needs_review`). Extension. */
  requestReview(policyId: string, options?: WriteOptions) {
    return send(this.#ctx, 'requestPolicyReview', { params: { policyId }, json: {}, options });
  }

  /** Relevance (`isRelevant: false` needs `notRelevantReason`), `nextReviewDate`, `documents` as external links. Extension. */
  update(policyId: string, body: UpdatePolicyBody, options?: WriteOptions) {
    return send(this.#ctx, 'updatePolicy', { params: { policyId }, json: body, options });
  }
}
