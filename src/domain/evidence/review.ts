// Evidence review (issue 26): a reviewer approves evidence waiting for approval or sends it back
// with a reason; PATCH changes relevance and adds external links. The state machine, written out
// in docs/decisions/program-writes.md ("Evidence review") and docs/program-moves.md:
//
//   upload, or links added (any status) ──► pending_approval (the record has approvers) | uploaded
//   approve           pending_approval ──► uploaded
//   request_revision  uploaded | pending_approval | needs_review | needs_attention ──► needs_revision
//
// Time moves a record to needs_attention when its period ends (docs/decisions/program-writes.md,
// "Time"); nothing here moves to draft or needs_review, which come from the program's own data.
import type { Context } from '../context.ts';
import { validationFailed, type FieldIssue } from '../../shared/errors.ts';
import type { IdempotencyInput, Outcome } from '../idempotency/run.ts';
import { attachmentPeriod, type EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import { assertMoveAllowed, type Machine, type Moves } from '../artifacts/moves.ts';
import { checkedLinks, relevanceChange } from '../artifacts/field-changes.ts';
import {
  artifactHasApprovers,
  countLinkAttachments,
  type NewLinkAttachment,
} from '../../storage/db/repositories/artifacts/artifact-writes.ts';
import { CLOCK_SKEW_MS } from './upload.ts';
import { writeEvidence, type EvidenceWrite } from './write.ts';
import type { EvidenceDetail } from './schema.ts';
import { MAX_LINKS_PER_RECORD } from '../artifacts/write-schema.ts';
import type { EvidenceLinkInput, RequestEvidenceRevisionBody, UpdateEvidenceBody } from './write-schema.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

/** The review moves and the statuses each is allowed from. */
export const EVIDENCE_MOVES = {
  approve: ['pending_approval'],
  request_revision: ['uploaded', 'pending_approval', 'needs_review', 'needs_attention'],
} as const satisfies Moves<EvidenceStatus>;

export type EvidenceMove = keyof typeof EVIDENCE_MOVES;

const MACHINE: Machine<EvidenceStatus> = {
  moves: EVIDENCE_MOVES,
  what: 'evidence record',
  always: 'an upload, or links added with PATCH, submit evidence from any status',
};

/** Where each move leads. */
export const EVIDENCE_MOVE_TARGETS: Record<EvidenceMove, EvidenceStatus> = {
  approve: 'uploaded',
  request_revision: 'needs_revision',
};

interface MoveInput {
  evidenceId: string;
  idempotency: IdempotencyInput;
}

/** `pending_approval` → `uploaded`. */
export function approveEvidence({ ctx, input }: { ctx: Context; input: MoveInput & { body?: object } }): Promise<Outcome<EvidenceDetail>> {
  return writeEvidence({
    ctx,
    evidenceId: input.evidenceId,
    operation: 'evidence.approve',
    idempotency: input.idempotency,
    body: input.body,
    decide: async ({ row }) => {
      assertMoveAllowed(MACHINE, 'approve', row.status);
      return { columns: { status: EVIDENCE_MOVE_TARGETS.approve } };
    },
  });
}

/** → `needs_revision`, with the reason, who asked and when. */
export function requestEvidenceRevision({
  ctx,
  input,
}: {
  ctx: Context;
  input: MoveInput & { body: RequestEvidenceRevisionBody };
}): Promise<Outcome<EvidenceDetail>> {
  return writeEvidence({
    ctx,
    evidenceId: input.evidenceId,
    operation: 'evidence.requestRevision',
    idempotency: input.idempotency,
    body: input.body,
    decide: async ({ row, now, actorId }) => {
      assertMoveAllowed(MACHINE, 'request_revision', row.status);
      return {
        columns: {
          status: EVIDENCE_MOVE_TARGETS.request_revision,
          rejectionReason: input.body.rejectionReason,
          revisionRequestedBy: actorId,
          revisionRequestedOn: now,
        },
      };
    },
  });
}

/**
 * Relevance and external links. `isRelevant: false` needs a `notRelevantReason` (given now, or
 * already stored when the record is not relevant); `true` clears it; a reason alone replaces the
 * stored one of a record that is not relevant. Links are submitted evidence, as an upload is.
 */
export function updateEvidence({
  ctx,
  input,
}: {
  ctx: Context;
  input: MoveInput & { body: UpdateEvidenceBody };
}): Promise<Outcome<EvidenceDetail>> {
  const body = input.body;
  return writeEvidence({
    ctx,
    evidenceId: input.evidenceId,
    operation: 'evidence.update',
    idempotency: input.idempotency,
    body,
    decide: async ({ trx, org, row, now }) => {
      const issues: FieldIssue[] = [];
      const change: EvidenceWrite = { columns: {} };
      relevanceChange(row, body, issues, change.columns);
      if (body.links !== undefined) {
        change.links = linksOf(body.links, row.recurrence, now, issues);
        const held = await countLinkAttachments(trx, org, row.id);
        if (held + body.links.length > MAX_LINKS_PER_RECORD)
          issues.push({ field: 'links', message: `a record holds at most ${MAX_LINKS_PER_RECORD} links; it has ${held}` });
      }
      if (issues.length > 0) throw validationFailed(issues);
      if (change.links && change.links.length > 0) {
        change.columns.status = (await artifactHasApprovers(trx, org, 'evidence', row.id)) ? 'pending_approval' : 'uploaded';
      }
      return change;
    },
  });
}

function linksOf(links: readonly EvidenceLinkInput[], recurrence: string | null, now: number, issues: FieldIssue[]): NewLinkAttachment[] {
  return checkedLinks(links, 'links', issues).map((link, i) => {
    const evidenceDate = link.evidenceDate ?? now;
    if (evidenceDate > now + CLOCK_SKEW_MS) issues.push({ field: `links[${i}].evidenceDate`, message: 'must not be in the future' });
    return { displayName: link.displayName, url: link.url, note: link.note, evidenceDate, ...attachmentPeriod(recurrence, evidenceDate) };
  });
}
