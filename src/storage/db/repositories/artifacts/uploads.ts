// Evidence uploads: the journal of uploads in flight (pending_uploads, see migration 0004), the
// attachment rows a finished upload records, and the evidence state it changes.
import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { instanceAlive } from '../service/server-instances.ts';

type Q = Kysely<Database>;

export interface PendingUpload {
  id: string;
  organizationId: string;
  evidenceId: string;
  blobPrefix: string;
  createdAt: number;
  /** the lease: pending after this, the upload is abandoned even if its process lives */
  expiresAt: number;
  /** the server instance receiving it (migration 0009): pending after that instance is gone, the upload is abandoned */
  instanceId?: string | null;
}

export async function insertPendingUpload(db: Q, upload: PendingUpload): Promise<void> {
  await db
    .insertInto('pending_uploads')
    .values({
      id: upload.id,
      organization_id: upload.organizationId,
      evidence_id: upload.evidenceId,
      blob_prefix: upload.blobPrefix,
      created_at: upload.createdAt,
      expires_at: upload.expiresAt,
      instance_id: upload.instanceId ?? null,
    })
    .execute();
}

export async function deletePendingUpload(db: Q, id: string): Promise<void> {
  await db.deleteFrom('pending_uploads').where('id', '=', id).execute();
}

/** `expires_at` of an upload the clean-up has taken: its blobs are being deleted. */
const TAKEN = 0;

/**
 * Removes the journal entry of an upload being recorded, in the transaction that records it;
 * false when the clean-up has taken the upload as abandoned (its blobs are going), so the
 * transaction must not record it.
 */
export async function finishPendingUpload(db: Q, id: string): Promise<boolean> {
  const result = await db.deleteFrom('pending_uploads').where('id', '=', id).where('expires_at', '>', TAKEN).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** When an upload is abandoned: past its lease, or its instance gone (no heartbeat since `aliveSince`, or no row). */
export interface AbandonedAt {
  now: number;
  aliveSince: number;
}

const abandoned = (eb: ExpressionBuilder<Database, 'pending_uploads'>, at: AbandonedAt) =>
  eb.or([
    eb('expires_at', '<=', at.now),
    eb.and([eb('instance_id', 'is not', null), eb.not(instanceAlive('pending_uploads.instance_id', at.aliveSince))]),
  ]);

/** Uploads whose process died (or is stuck past the lease): still pending, abandoned. */
export async function listAbandonedPendingUploads(db: Q, at: AbandonedAt, limit: number): Promise<PendingUpload[]> {
  const rows = await db
    .selectFrom('pending_uploads')
    .selectAll()
    .where((eb) => abandoned(eb, at))
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    evidenceId: r.evidence_id,
    blobPrefix: r.blob_prefix,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    instanceId: r.instance_id,
  }));
}

/**
 * Takes an abandoned upload for the clean-up, if it still is abandoned (one statement: an upload
 * recorded meanwhile is gone, and one whose instance came back is left alone). Once taken, the
 * upload can no longer be recorded (finishPendingUpload), so its blobs can be deleted safely.
 */
export async function takeAbandonedPendingUpload(db: Q, id: string, at: AbandonedAt): Promise<boolean> {
  const result = await db
    .updateTable('pending_uploads')
    .set({ expires_at: TAKEN })
    .where('id', '=', id)
    .where((eb) => abandoned(eb, at))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Bytes of the files an organization keeps (external links have no size). Reached through the
 * organization's evidence, whose indexes (evidence by organization, attachments by evidence) keep
 * it from reading other organizations' attachments.
 */
export async function sumAttachmentBytes(db: Q, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('attachments')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('size_bytes'), eb.lit(0)).as('bytes'))
    .where('organization_id', '=', organizationId)
    .where('evidence_id', 'in', (eb) => eb.selectFrom('evidence').select('id').where('organization_id', '=', organizationId))
    .executeTakeFirstOrThrow();
  return Number(row.bytes); // PostgreSQL's sum of bigint is numeric, read as a string
}

export interface NewAttachment {
  displayName: string;
  type: string;
  note: string | null;
  blobKey: string;
  sizeBytes: number;
  sha256: string;
  evidenceDate: number;
  periodStart: number | null;
  periodEnd: number | null;
}

export async function insertAttachments(
  db: Q,
  organizationId: string,
  evidenceId: string,
  uploadId: string,
  addedOn: number,
  files: NewAttachment[],
): Promise<void> {
  await db
    .insertInto('attachments')
    .values(
      files.map((f) => ({
        id: randomUUID(),
        organization_id: organizationId,
        evidence_id: evidenceId,
        display_name: f.displayName,
        type: f.type,
        url: null,
        note: f.note,
        blob_key: f.blobKey,
        size_bytes: f.sizeBytes,
        sha256: f.sha256,
        upload_id: uploadId,
        evidence_date: f.evidenceDate,
        period_start: f.periodStart,
        period_end: f.periodEnd,
        added_by: null, // an API credential is not a person
        added_on: addedOn,
        updated_by: null,
        updated_on: null,
      })),
    )
    .execute();
}

export async function hasApprovers(db: Q, organizationId: string, evidenceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('subject_people')
    .select('person_id')
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', 'evidence')
    .where('subject_id', '=', evidenceId)
    .where('role', '=', 'approver')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateEvidenceStatus(
  db: Q,
  organizationId: string,
  evidenceId: string,
  status: string,
  modifiedOn: number,
): Promise<void> {
  await db
    .updateTable('evidence')
    .set({ status, modified_on: modifiedOn, last_modified_by: null })
    .where('organization_id', '=', organizationId)
    .where('id', '=', evidenceId)
    .execute();
}
