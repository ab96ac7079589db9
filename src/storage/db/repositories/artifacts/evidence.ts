// Evidence records, their attachments and the tests that collect them. Filters and shared columns
// live in artifacts.ts (policies use the same ones).
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../schema.ts';
import { commonColumns, fileEntry, artifactReads, nullableMs, listFileRows, type ArtifactCommon, type FileEntryRow } from './artifacts.ts';

type Q = Kysely<Database>;

export interface EvidenceRow extends ArtifactCommon {
  gaps: string[];
  collectionMethod: string | null;
  revisionRequestedBy: string | null;
  revisionRequestedOn: number | null;
  rejectionReason: string | null;
  /** when the latest attachment period ends (migration 0016): time makes the record stale then */
  staleAt: number | null;
}

export interface AttachmentRow extends FileEntryRow {
  evidenceDate: number;
  periodStart: number | null;
  periodEnd: number | null;
}

/** A test linked to an evidence record, with the stored columns its status is computed from. */
export interface MappedTestRow {
  testId: string;
  testName: string;
  result: string;
  integrationFailing: boolean;
}

function toEvidence(r: Selectable<Database['evidence']>): EvidenceRow {
  return {
    ...commonColumns(r),
    gaps: JSON.parse(r.gaps) as string[],
    collectionMethod: r.collection_method,
    revisionRequestedBy: r.revision_requested_by,
    revisionRequestedOn: nullableMs(r.revision_requested_on),
    rejectionReason: r.rejection_reason,
    staleAt: r.stale_at === undefined ? null : nullableMs(r.stale_at),
  };
}

const evidenceReads = artifactReads('evidence', toEvidence);
export const listEvidence = evidenceReads.list;
export const findEvidence = evidenceReads.find;

/**
 * An evidence record's attachments, newest evidence date first (then by ID). A file the service
 * hosts (it has a blob) never carries a URL, whatever the row holds.
 */
export async function listAttachments(db: Q, organizationId: string, evidenceId: string): Promise<AttachmentRow[]> {
  const rows = await listFileRows(db, 'attachments', organizationId, evidenceId);
  return rows.map((r) => ({
    ...fileEntry(r, r.blob_key !== null),
    evidenceDate: Number(r.evidence_date),
    periodStart: nullableMs(r.period_start),
    periodEnd: nullableMs(r.period_end),
  }));
}

/** The tests linked to an evidence record, ordered by name then ID. */
export async function listEvidenceTests(db: Q, organizationId: string, evidenceId: string): Promise<MappedTestRow[]> {
  const rows = await db
    .selectFrom('evidence_tests as et')
    .innerJoin('tests as t', 't.id', 'et.test_id')
    .select(['t.id', 't.name', 't.result', 't.integration_failing'])
    .where('et.organization_id', '=', organizationId)
    .where('t.organization_id', '=', organizationId)
    .where('et.evidence_id', '=', evidenceId)
    .orderBy('t.name')
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({ testId: r.id, testName: r.name, result: r.result, integrationFailing: Boolean(r.integration_failing) }));
}
