// One way to write an evidence record for the review moves (approve, request revision) and PATCH:
// under an Idempotency-Key, in one transaction that bumps the evidence data version first (locking
// the organization's row, so the record read next is the one the write changes), decides the change
// from the record as it is, writes it stamped with the caller, and records its events with it:
// - `evidence.attachments_added` for external links added (as GET ?fields=attachments shows them);
// - `evidence.status_changed` when the status moved;
// - `evidence.updated` with the fields other than `status` that changed, as GET names them, when
//   any changed besides the stamps (`lastModifiedBy`, `modifiedOn`): a pure move records only its
//   status change;
// - the computed `control.status_changed` and `framework.progress_changed` (complianceChanges),
//   caused by the status change when there is one, otherwise by the update (relevance).
// Answers the record as GET /v1/evidence/{evidenceId} does.
import { refreshStaleAt } from '../../storage/db/repositories/service/time-due.ts';
import { TIME_MOVES } from '../time/due.ts';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import type { Database } from '../../storage/db/schema.ts';
import { findEvidence, type EvidenceRow } from '../../storage/db/repositories/artifacts/evidence.ts';
import {
  insertLinkAttachments,
  updateEvidenceColumns,
  type EvidenceChange,
  type NewLinkAttachment,
} from '../../storage/db/repositories/artifacts/artifact-writes.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import { changedFields } from '../events/changes.ts';
import { complianceChanges } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { evidenceState } from '../compliance/rules.ts';
import { setPresent } from '../set-present.ts';
import type { EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import { buildEvidenceDetail, isCurrentPeriod } from './get.ts';
import type { Attachment, EvidenceDetail } from './schema.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

/** What a write changes, decided from the record as it is (throwing validationFailed when it may not). */
export interface EvidenceWrite {
  columns: Omit<EvidenceChange, 'lastModifiedBy' | 'modifiedOn'>;
  links?: NewLinkAttachment[];
}

export interface DecideInput {
  trx: Kysely<Database>;
  org: string;
  row: EvidenceRow;
  now: number;
  /** the person row that stamps the caller (src/domain/people/actor-stamp.ts) */
  actorId: string;
}

/** Fields whose change alone does not make an `evidence.updated`: every write sets them. */
const STAMPS = new Set(['lastModifiedBy', 'modifiedOn']);

export async function writeEvidence({
  ctx,
  evidenceId,
  operation,
  idempotency,
  body,
  decide,
}: {
  ctx: Context;
  evidenceId: string;
  /** names the write in its fingerprint: a key reused for another move of the same record is refused */
  operation: string;
  idempotency: IdempotencyInput;
  body: unknown;
  decide: (input: DecideInput) => Promise<EvidenceWrite>;
}): Promise<Outcome<EvidenceDetail>> {
  authorize(ctx.actor, 'evidence', 'write');
  const org = ctx.actor.organizationId;
  const fingerprints = fingerprintSubjects(operation, evidenceId).map((s) => jsonFingerprint(s, body ?? {}));
  const outcome = await runIdempotent(keyScopeOf(ctx, idempotency), fingerprints, async (trx) => {
    await bumpDataVersions(trx, org, WRITES['evidence.update']);
    const row = await findEvidence(trx, org, evidenceId);
    if (!row) throw notFound('Evidence');
    const now = ctx.now();
    const actorId = await actorPersonId(trx, org, { kind: 'credential', credentialId: ctx.actor.credentialId });
    const change = await decide({ trx, org, row, now, actorId });

    const before = await buildEvidenceDetail(trx, org, row, [], ctx.now());
    await updateEvidenceColumns(trx, org, row.id, { ...change.columns, lastModifiedBy: actorId, modifiedOn: now });
    const links = change.links ?? [];
    await insertLinkAttachments(trx, org, row.id, { by: actorId, on: now }, links);
    if (links.length > 0) {
      // Links are submitted evidence like an upload, with its time rule: when nothing covers the
      // current period (the links backfilled an ended one) the record is stale at once
      // (docs/decisions/program-writes.md, "Time").
      const staleAt = (await refreshStaleAt(trx, org, [row.id])).get(row.id) ?? null;
      if (staleAt !== null && staleAt <= now)
        await updateEvidenceColumns(trx, org, row.id, { status: TIME_MOVES.evidence.to, lastModifiedBy: actorId, modifiedOn: now });
    }
    const updated = (await findEvidence(trx, org, row.id))!;
    const after = await buildEvidenceDetail(trx, org, updated, [], ctx.now());

    const events: NewEvent[] = [];
    if (links.length > 0) {
      const stamp = after.lastModifiedBy;
      events.push({
        type: 'evidence.attachments_added',
        resourceId: row.id,
        occurredAt: now,
        data: { attachments: links.map((l) => linkAttachment(l, stamp, now)) },
      });
    }
    const statusChanged = row.status !== updated.status;
    if (statusChanged) {
      events.push({
        type: 'evidence.status_changed',
        resourceId: row.id,
        occurredAt: now,
        data: { before: row.status as EvidenceStatus, after: updated.status as EvidenceStatus },
      });
    }
    const { status: _status, ...changes } = changedFields(before, after);
    if (Object.keys(changes).some((field) => !STAMPS.has(field))) {
      events.push({ type: 'evidence.updated', resourceId: row.id, occurredAt: now, data: { changes } });
    }
    const cause = { type: statusChanged ? 'evidence.status_changed' : 'evidence.updated', resourceId: row.id };
    events.push(
      ...(await complianceChanges(trx, org, {
        type: 'evidence',
        id: row.id,
        before: evidenceState(row.isRelevant, row.status),
        after: evidenceState(updated.isRelevant, updated.status),
        cause,
        occurredAt: now,
      })),
    );
    await recordEvents(trx, org, events);
    return { kind: 'updated', resource: after as EvidenceDetail };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}

/** An external link as GET /v1/evidence/{evidenceId}?fields=attachments shows it. */
function linkAttachment(link: NewLinkAttachment, addedBy: Attachment['addedBy'], now: number): Attachment {
  const entry: Attachment = {
    displayName: link.displayName,
    type: 'link',
    url: link.url,
    addedOn: now,
    evidenceDate: link.evidenceDate,
    isCurrentPeriod: false,
  };
  setPresent(entry, 'note', link.note);
  setPresent(entry, 'addedBy', addedBy);
  setPresent(entry, 'periodStart', link.periodStart);
  setPresent(entry, 'periodEnd', link.periodEnd);
  entry.isCurrentPeriod = isCurrentPeriod(entry, now);
  return entry;
}
