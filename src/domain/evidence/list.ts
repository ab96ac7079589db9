// The evidence list (served under two names, evidence and evidences): the caller's evidence
// records matching the filters, with the fields asked for.
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import { setPresent } from '../set-present.ts';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import type { EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import {
  commonListFields,
  commonOptionalFields,
  loadLinks,
  needsFor,
  toFilter,
  type ArtifactLinks,
  type ArtifactListInput,
} from '../artifacts/read.ts';
import type { Evidence } from './schema.ts';
import { listEvidence as listEvidenceRows, type EvidenceRow } from '../../storage/db/repositories/artifacts/evidence.ts';

export const EVIDENCE_OPTIONAL_FIELDS = [
  'mappedFrameworkIds',
  'mappedControlIds',
  'notRelevantReason',
  'recurrence',
  'effortEstimate',
  'source',
  'evidenceCollectionMethod',
  'ticketsCount',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const;
export type EvidenceOptionalField = (typeof EVIDENCE_OPTIONAL_FIELDS)[number];
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

export type ListEvidenceInput = ArtifactListInput<EvidenceStatus, EvidenceOptionalField>;

export async function listEvidence({ ctx, input }: { ctx: Context; input: ListEvidenceInput }): Promise<Evidence[]> {
  authorize(ctx.actor, 'evidence', 'read');
  return cachedWithinPlan(ctx, 'evidence.list', input, () => compute(ctx, input));
}

/** The default list fields of an evidence record (get-one starts from them too). */
export function evidenceListItem(row: EvidenceRow, links: ArtifactLinks): Evidence {
  return {
    evidenceId: row.id,
    evidenceName: row.name,
    ...commonListFields(row, links),
    status: row.status as EvidenceStatus,
    gapCount: row.gaps.length,
  };
}

async function compute(ctx: Context, input: ListEvidenceInput): Promise<Evidence[]> {
  const fields = new Set<string>(input.fields ?? []);
  const rows = await listEvidenceRows(ctx.db.kysely, ctx.actor.organizationId, toFilter(input));
  const links = await loadLinks(
    ctx,
    'evidence',
    rows.map((r) => r.id),
    needsFor(fields),
  );
  return rows.map((row) => {
    const evidence: Evidence = { ...evidenceListItem(row, links), ...commonOptionalFields(row, links, fields) };
    if (fields.has('evidenceCollectionMethod')) setPresent(evidence, 'evidenceCollectionMethod', row.collectionMethod);
    if (fields.has('ticketsCount')) evidence.ticketsCount = links.ticketCounts.get(row.id) ?? 0;
    return evidence;
  });
}
