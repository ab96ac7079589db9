// The policy lifecycle (issue 26): submit, approve, publish, request review, and PATCH (relevance,
// next review date, documents as external links). The state machine, written out in
// docs/decisions/program-writes.md ("Policy lifecycle") and docs/program-moves.md:
//
//   documents added      not_uploaded ──► draft (other statuses are kept)
//   submit               draft | needs_review | needs_attention ──► pending_approval (the policy has
//                        approvers) | draft_approved (it has none: nobody to wait for)
//   approve              pending_approval ──► draft_approved
//   publish              draft_approved ──► published (a new version in versionHistory)
//   request_review       published | needs_attention ──► needs_review
//
// Time moves a published policy to needs_review when its nextReviewDate passes
// (docs/decisions/program-writes.md, "Time").
import type { Context } from '../context.ts';
import { validationFailed, type FieldIssue } from '../../shared/errors.ts';
import type { IdempotencyInput, Outcome } from '../idempotency/run.ts';
import type { POLICY_STATUSES } from '../../shared/vocabulary.ts';
import { assertMoveAllowed, type Machine, type Moves } from '../artifacts/moves.ts';
import { checkedLinks, relevanceChange } from '../artifacts/field-changes.ts';
import { MAX_LINKS_PER_RECORD } from '../artifacts/write-schema.ts';
import { artifactHasApprovers, countPolicyDocumentLinks } from '../../storage/db/repositories/artifacts/artifact-writes.ts';
import { listPolicyVersions } from '../../storage/db/repositories/artifacts/policies.ts';
import { writePolicy, type PolicyWrite } from './write.ts';
import type { PolicyDetail } from './schema.ts';
import type { PublishPolicyBody, UpdatePolicyBody } from './write-schema.ts';

type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** The lifecycle moves and the statuses each is allowed from. */
export const POLICY_MOVES = {
  submit: ['draft', 'needs_review', 'needs_attention'],
  approve: ['pending_approval'],
  publish: ['draft_approved'],
  request_review: ['published', 'needs_attention'],
} as const satisfies Moves<PolicyStatus>;

export type PolicyMove = keyof typeof POLICY_MOVES;

const MACHINE: Machine<PolicyStatus> = { moves: POLICY_MOVES, what: 'policy' };

interface MoveInput {
  policyId: string;
  idempotency: IdempotencyInput;
  body?: object;
}

type Verb = (args: { ctx: Context; input: MoveInput }) => Promise<Outcome<PolicyDetail>>;

function move(
  name: PolicyMove,
  operation: string,
  decide: (args: Parameters<Parameters<typeof writePolicy>[0]['decide']>[0]) => Promise<PolicyWrite>,
): Verb {
  return ({ ctx, input }) =>
    writePolicy({
      ctx,
      policyId: input.policyId,
      operation,
      idempotency: input.idempotency,
      body: input.body,
      decide: async (args) => {
        assertMoveAllowed(MACHINE, name, args.row.status);
        return decide(args);
      },
    });
}

/** → `pending_approval` when the policy has approvers, otherwise `draft_approved`. */
export const submitPolicy: Verb = move('submit', 'policies.submit', async ({ trx, org, row }) => ({
  columns: { status: (await artifactHasApprovers(trx, org, 'policy', row.id)) ? 'pending_approval' : 'draft_approved' },
}));

/** `pending_approval` → `draft_approved`. */
export const approvePolicy: Verb = move('approve', 'policies.approve', async () => ({ columns: { status: 'draft_approved' } }));

/** `needs_review`. */
export const requestPolicyReview: Verb = move('request_review', 'policies.requestReview', async () => ({
  columns: { status: 'needs_review' },
}));

/** `draft_approved` → `published`, with a new version (named in the body, or the next one). */
export function publishPolicy({ ctx, input }: { ctx: Context; input: MoveInput & { body?: PublishPolicyBody } }) {
  return move('publish', 'policies.publish', async ({ trx, org, row }) => {
    const versions = await listPolicyVersions(trx, org, row.id);
    const requested = input.body?.versionName?.trim();
    const versionName = requested ?? nextVersionName(versions.map((v) => v.versionName));
    if (versionName === undefined)
      throw validationFailed([
        {
          field: 'versionName',
          message: `the last version (${versions[0].versionName}) is not numbered <major>.<minor>: name the new one`,
        },
      ]);
    if (versions.some((v) => v.versionName === versionName))
      throw validationFailed([{ field: 'versionName', message: `the policy has already published a version ${versionName}` }]);
    return { columns: { status: 'published' }, version: { versionName } };
  })({ ctx, input });
}

/**
 * The version after the last one published (`versions` newest first): its minor number plus one
 * (`1.2` after `1.1`), `1.0` for a first publication; undefined when the last one is named otherwise.
 */
export function nextVersionName(versions: readonly string[]): string | undefined {
  if (versions.length === 0) return '1.0';
  const m = /^(v?)(\d{1,9})\.(\d{1,9})$/i.exec(versions[0]);
  if (!m) return undefined;
  const name = (minor: number) => `${m[1]}${Number(m[2])}.${minor}`;
  let minor = Number(m[3]) + 1;
  // never a name already used (versions published out of order)
  while (versions.includes(name(minor))) minor++;
  return name(minor);
}

/** Relevance, the next review date and documents as external links. */
export function updatePolicy({
  ctx,
  input,
}: {
  ctx: Context;
  input: { policyId: string; idempotency: IdempotencyInput; body: UpdatePolicyBody };
}): Promise<Outcome<PolicyDetail>> {
  const body = input.body;
  return writePolicy({
    ctx,
    policyId: input.policyId,
    operation: 'policies.update',
    idempotency: input.idempotency,
    body,
    decide: async ({ trx, org, row }) => {
      const issues: FieldIssue[] = [];
      const change: PolicyWrite = { columns: {} };
      relevanceChange(row, body, issues, change.columns);
      if (body.nextReviewDate !== undefined) change.columns.nextReviewDate = body.nextReviewDate;
      if (body.documents !== undefined) {
        change.documents = checkedLinks(body.documents, 'documents', issues).map((d) => ({
          displayName: d.displayName,
          url: d.url,
          note: d.note,
        }));
        const held = await countPolicyDocumentLinks(trx, org, row.id);
        if (held + body.documents.length > MAX_LINKS_PER_RECORD)
          issues.push({ field: 'documents', message: `a policy holds at most ${MAX_LINKS_PER_RECORD} linked documents; it has ${held}` });
        if (row.status === 'not_uploaded') change.columns.status = 'draft';
      }
      if (issues.length > 0) throw validationFailed(issues);
      return change;
    },
  });
}
