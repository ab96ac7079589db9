// The writes of the review and lifecycle moves (evidence approval and revision requests, policy
// submission to publication) and of the fields PATCH changes on evidence and policies: the
// record's own columns, external links added as attachments or documents, a published version.
// Each function runs inside the caller's transaction; the rules live in the domain.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import type { ArtifactKind } from './artifacts.ts';

type Q = Kysely<Database>;

export async function artifactHasApprovers(db: Q, organizationId: string, kind: ArtifactKind, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('subject_people')
    .select('person_id')
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', kind)
    .where('subject_id', '=', id)
    .where('role', '=', 'approver')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Columns of an evidence record a move or PATCH sets; undefined leaves a column as it is. */
export interface EvidenceChange {
  status?: string;
  isRelevant?: boolean;
  notRelevantReason?: string | null;
  revisionRequestedBy?: string | null;
  revisionRequestedOn?: number | null;
  rejectionReason?: string | null;
  lastModifiedBy: string;
  modifiedOn: number;
}

export async function updateEvidenceColumns(db: Q, organizationId: string, id: string, change: EvidenceChange): Promise<void> {
  await db
    .updateTable('evidence')
    .set({
      status: change.status,
      is_relevant: change.isRelevant,
      not_relevant_reason: change.notRelevantReason,
      revision_requested_by: change.revisionRequestedBy,
      revision_requested_on: change.revisionRequestedOn,
      rejection_reason: change.rejectionReason,
      last_modified_by: change.lastModifiedBy,
      modified_on: change.modifiedOn,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Columns of a policy a move or PATCH sets; undefined leaves a column as it is. */
export interface PolicyChange {
  status?: string;
  isRelevant?: boolean;
  notRelevantReason?: string | null;
  nextReviewDate?: number | null;
  versionNumber?: string;
  publishedBy?: string;
  publishedOn?: number;
  lastModifiedBy: string;
  modifiedOn: number;
}

export async function updatePolicyColumns(db: Q, organizationId: string, id: string, change: PolicyChange): Promise<void> {
  await db
    .updateTable('policies')
    .set({
      status: change.status,
      is_relevant: change.isRelevant,
      not_relevant_reason: change.notRelevantReason,
      next_review_date: change.nextReviewDate,
      version_number: change.versionNumber,
      published_by: change.publishedBy,
      published_on: change.publishedOn,
      last_modified_by: change.lastModifiedBy,
      modified_on: change.modifiedOn,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** An external link added to a record: no file, no size. */
export interface NewLink {
  displayName: string;
  url: string;
  note: string | null;
}

export interface NewLinkAttachment extends NewLink {
  evidenceDate: number;
  periodStart: number | null;
  periodEnd: number | null;
}

export async function insertLinkAttachments(
  db: Q,
  organizationId: string,
  evidenceId: string,
  added: { by: string; on: number },
  links: readonly NewLinkAttachment[],
): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('attachments')
    .values(
      links.map((l) => ({
        id: randomUUID(),
        organization_id: organizationId,
        evidence_id: evidenceId,
        display_name: l.displayName,
        type: 'link',
        url: l.url,
        note: l.note,
        blob_key: null,
        size_bytes: null,
        sha256: null,
        upload_id: null,
        evidence_date: l.evidenceDate,
        period_start: l.periodStart,
        period_end: l.periodEnd,
        added_by: added.by,
        added_on: added.on,
        updated_by: null,
        updated_on: null,
      })),
    )
    .execute();
}

/** External links (entries without a hosted file) an evidence record holds. */
export async function countLinkAttachments(db: Q, organizationId: string, evidenceId: string): Promise<number> {
  const row = await db
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('evidence_id', '=', evidenceId)
    .where('blob_key', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPolicyDocumentLinks(
  db: Q,
  organizationId: string,
  policyId: string,
  added: { by: string; on: number },
  links: readonly NewLink[],
): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('policy_documents')
    .values(
      links.map((l) => ({
        id: randomUUID(),
        organization_id: organizationId,
        policy_id: policyId,
        display_name: l.displayName,
        type: 'link',
        url: l.url,
        note: l.note,
        added_by: added.by,
        added_on: added.on,
        updated_by: null,
        updated_on: null,
      })),
    )
    .execute();
}

/** External links among a policy's documents. */
export async function countPolicyDocumentLinks(db: Q, organizationId: string, policyId: string): Promise<number> {
  const row = await db
    .selectFrom('policy_documents')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('policy_id', '=', policyId)
    .where('url', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPolicyVersion(
  db: Q,
  organizationId: string,
  policyId: string,
  version: { versionName: string; publishedBy: string; publishedOn: number },
): Promise<void> {
  await db
    .insertInto('policy_versions')
    .values({
      id: randomUUID(),
      organization_id: organizationId,
      policy_id: policyId,
      version_name: version.versionName,
      published_by: version.publishedBy,
      published_on: version.publishedOn,
    })
    .execute();
}
