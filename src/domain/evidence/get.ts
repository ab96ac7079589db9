// One evidence record (served under both the evidence and the evidences names), with its
// mappings, authorship and revision request, plus the expansions asked for (mapped tests, gaps,
// attachments, tickets).
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import { setPresent } from '../set-present.ts';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import {
  COMMON_OPTIONAL_FIELDS,
  commonMappings,
  commonOptionalFields,
  fileEntry,
  loadLinksFrom,
  stamp,
  ticketsOf,
  type ArtifactLinks,
} from '../artifacts/read.ts';
import { evidenceListItem } from './list.ts';
import type { Attachment, EvidenceDetail } from './schema.ts';
import { testStatus } from '../compliance/rules.ts';
import { evidenceStatusReason } from '../time/due.ts';
import { findEvidence, listAttachments, listEvidenceTests, type EvidenceRow } from '../../storage/db/repositories/artifacts/evidence.ts';

export const EVIDENCE_EXPANSIONS = ['mappedTests', 'gaps', 'attachments', 'tickets'] as const;
export type EvidenceExpansion = (typeof EVIDENCE_EXPANSIONS)[number];

/** Fields shared with the list that get-one always carries (when they have a value): all but the mapped IDs. */
const DEFAULT_DETAIL = new Set<string>(COMMON_OPTIONAL_FIELDS.filter((f) => f !== 'mappedFrameworkIds' && f !== 'mappedControlIds'));

type StoredAttachment = Omit<Attachment, 'isCurrentPeriod'>;

/** What is cached: everything but the clock-dependent `isCurrentPeriod`. */
export type CachedDetail = Omit<EvidenceDetail, 'attachments'> & { attachments?: StoredAttachment[] };

export interface GetEvidenceInput {
  evidenceId: string;
  fields?: EvidenceExpansion[];
}

export async function getEvidence({ ctx, input }: { ctx: Context; input: GetEvidenceInput }): Promise<EvidenceDetail> {
  authorize(ctx.actor, 'evidence', 'read');
  const { attachments, ...detail } = await cachedWithinPlan(ctx, 'evidence.get', input, () => compute(ctx, input));
  if (!attachments) return detail;
  // Whether an attachment covers the current period depends on the clock, not only on the data,
  // so it is decided per request rather than cached.
  const now = ctx.now();
  return { ...detail, attachments: attachments.map((a) => ({ ...a, isCurrentPeriod: isCurrentPeriod(a, now) })) };
}

/** True when `now` lies within the attachment's period (bounds included); false without a period. */
export function isCurrentPeriod(a: { periodStart?: number; periodEnd?: number }, now: number): boolean {
  return a.periodStart !== undefined && a.periodEnd !== undefined && a.periodStart <= now && now <= a.periodEnd;
}

async function compute(ctx: Context, input: GetEvidenceInput): Promise<CachedDetail> {
  const db = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const row = await findEvidence(db, org, input.evidenceId);
  if (!row) throw notFound('Evidence');
  return buildEvidenceDetail(db, org, row, input.fields ?? [], ctx.now());
}

/**
 * The record as GET /v1/evidence/{evidenceId} answers it, read through `db` (a write builds its
 * answer and its events' before and after inside its transaction). Attachments, when asked for,
 * come without `isCurrentPeriod` (the clock decides it: see getEvidence).
 */
export async function buildEvidenceDetail(
  db: Kysely<Database>,
  org: string,
  row: EvidenceRow,
  expansions: readonly EvidenceExpansion[],
  now: number,
  /** links already loaded for many records at once (mappings and people; used when tickets are not asked for) */
  preloaded?: ArtifactLinks,
): Promise<CachedDetail> {
  const fields = new Set(expansions);
  // Attachments are listed only once something was uploaded.
  const wantsAttachments = fields.has('attachments') && row.status !== 'not_uploaded';
  const [links, attachments, tests] = await Promise.all([
    preloaded && !fields.has('tickets')
      ? preloaded
      : loadLinksFrom(db, org, 'evidence', [row.id], { mappings: true, people: true, tickets: fields.has('tickets') }),
    wantsAttachments ? listAttachments(db, org, row.id) : undefined,
    fields.has('mappedTests') ? listEvidenceTests(db, org, row.id) : undefined,
  ]);
  const evidence: CachedDetail = {
    ...evidenceListItem(row, links),
    ...commonMappings(row, links),
    ...commonOptionalFields(row, links, DEFAULT_DETAIL),
  };
  setPresent(evidence, 'evidenceRequirementText', row.requirementText);
  setPresent(evidence, 'revisionRequestedBy', stamp(links, row.revisionRequestedBy));
  setPresent(evidence, 'revisionRequestedOn', row.revisionRequestedOn);
  setPresent(evidence, 'rejectionReason', row.rejectionReason);
  setPresent(evidence, 'statusReason', evidenceStatusReason(row, now));
  if (tests)
    evidence.mappedTests = tests.map((t) => ({
      testId: t.testId,
      testName: t.testName,
      status: testStatus(t.result, t.integrationFailing),
    }));
  if (fields.has('gaps')) evidence.gaps = row.gaps;
  if (fields.has('attachments')) {
    evidence.attachments = (attachments ?? []).map((a) => {
      const entry: StoredAttachment = { ...fileEntry(a, links), evidenceDate: a.evidenceDate };
      setPresent(entry, 'periodStart', a.periodStart);
      setPresent(entry, 'periodEnd', a.periodEnd);
      return entry;
    });
  }
  if (fields.has('tickets')) evidence.tickets = ticketsOf(links, row.id);
  return evidence;
}
