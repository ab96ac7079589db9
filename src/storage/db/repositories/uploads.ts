// Evidence uploads: the journal of uploads in flight (pending_uploads, see migration 0004), the
// attachment rows a finished upload records, and the evidence state it changes.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

type Q = Kysely<Database>;

export interface PendingUpload {
  id: string;
  organizationId: string;
  evidenceId: string;
  blobPrefix: string;
  createdAt: number;
  expiresAt: number;
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
    })
    .execute();
}

export async function deletePendingUpload(db: Q, id: string): Promise<void> {
  await db.deleteFrom('pending_uploads').where('id', '=', id).execute();
}

/** Uploads whose process must have died: still pending after their deadline. */
export async function listExpiredPendingUploads(db: Q, now: number, limit: number): Promise<PendingUpload[]> {
  const rows = await db
    .selectFrom('pending_uploads')
    .selectAll()
    .where('expires_at', '<=', now)
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
  }));
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
