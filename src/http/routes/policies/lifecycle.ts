// The policy lifecycle (extensions, issue 26): POST /v1/policies/{policyId}/submit, /approve,
// /publish, /request_review and PATCH /v1/policies/{policyId}. Each answers the policy as
// GET /v1/policies/{policyId} does.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  approvePolicy,
  POLICY_MOVES,
  publishPolicy,
  requestPolicyReview,
  submitPolicy,
  updatePolicy,
  type PolicyMove,
} from '../../../domain/policies/lifecycle.ts';
import { PublishPolicyBody, UpdatePolicyBody } from '../../../domain/policies/write-schema.ts';
import { EmptyMoveBody } from '../../../domain/artifacts/write-schema.ts';
import { moveGuards, WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { idParams } from '../../schemas/artifacts.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';
import { PolicyDetail } from './schemas.ts';

const Params = idParams('policyId', 'A policy ID of the caller’s organization.');
const from = (move: PolicyMove) => POLICY_MOVES[move].map((s) => `\`${s}\``).join(', ');

const errors = (what: string) =>
  writeErrors(
    `validation_failed (details name the field; \`status\` when ${what} is not allowed from the policy’s status, saying which moves are)`,
    'policy',
  );

const MOVES = [
  {
    move: 'submit',
    operationId: 'submitPolicy',
    verb: submitPolicy,
    body: EmptyMoveBody,
    summary: 'Submit a policy for approval (extension)',
    description: `Moves the policy from ${from('submit')} to \`pending_approval\` when it has approvers, otherwise to \`draft_approved\`. No body (or \`{}\`).`,
  },
  {
    move: 'approve',
    operationId: 'approvePolicy',
    verb: approvePolicy,
    body: EmptyMoveBody,
    summary: 'Approve a policy waiting for approval (extension)',
    description: `Moves the policy from ${from('approve')} to \`draft_approved\`. No body (or \`{}\`).`,
  },
  {
    move: 'publish',
    operationId: 'publishPolicy',
    verb: publishPolicy,
    body: PublishPolicyBody,
    summary: 'Publish an approved policy as a new version (extension)',
    description: `Moves the policy from ${from('publish')} to \`published\`: a new entry in \`versionHistory\`, and \`versionNumber\`, \`publishedBy\` (the credential) and \`publishedOn\` (now) set.`,
  },
  {
    move: 'request_review',
    operationId: 'requestPolicyReview',
    verb: requestPolicyReview,
    body: EmptyMoveBody,
    summary: 'Mark a policy for review (extension)',
    description: `Moves the policy from ${from('request_review')} to \`needs_review\`. No body (or \`{}\`).`,
  },
] as const;

export default function policyLifecycleRoutes(app: FastifyInstance, { system }: RouteDeps) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const m of MOVES) {
    typed.post(
      `/v1/policies/:policyId/${m.move}`,
      {
        preValidation: moveGuards('policy'),
        schema: {
          operationId: m.operationId,
          tags: ['policies'],
          summary: m.summary,
          description: `${m.description} Answers the policy as GET does. Idempotent under \`Idempotency-Key\`.`,
          security: [{ bearerAuth: ['policy:write'] }],
          headers: WriteHeaders,
          params: Params,
          body: m.body,
          response: { 200: Envelope(PolicyDetail, 'The policy after the move, as GET returns it.'), ...errors(m.move) },
        },
      },
      async (request, reply) =>
        replyWrite(system, request, reply, m.verb, {
          policyId: request.params.policyId,
          idempotency: { key: request.idempotencyKey! },
          body: request.body as object,
        }),
    );
  }

  typed.patch(
    '/v1/policies/:policyId',
    {
      preValidation: writeGuards('policy'),
      schema: {
        operationId: 'updatePolicy',
        tags: ['policies'],
        summary: 'Change a policy’s relevance or next review date, or add documents as links (extension)',
        description:
          '`isRelevant: false` needs `notRelevantReason`; `true` clears it. `nextReviewDate` (epoch ms, or `null`). `documents` adds external links; a `not_uploaded` policy becomes `draft`. Answers the policy as GET does. Idempotent under `Idempotency-Key`.',
        security: [{ bearerAuth: ['policy:write'] }],
        headers: WriteHeaders,
        params: Params,
        body: UpdatePolicyBody,
        response: { 200: Envelope(PolicyDetail, 'The policy after the update, as GET returns it.'), ...errors('a change') },
      },
    },
    async (request, reply) =>
      replyWrite(system, request, reply, updatePolicy, {
        policyId: request.params.policyId,
        idempotency: { key: request.idempotencyKey! },
        body: request.body,
      }),
  );
}
