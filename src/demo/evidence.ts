// Evidence requests with their attachments (none while `not_uploaded`), gaps, revision requests
// and links to the tests that collect them. The first seven take each status in turn.
import { EVIDENCE_GAPS, EVIDENCE_TEMPLATES, NOT_RELEVANT_REASONS, REVISION_REASONS } from './catalogues/artifacts.ts';
import { type ControlModel, mapArtifact } from './controls.ts';
import { addEntities, addPeople, addTickets, artifactBasics, type Ctx, json, lowerFirst, NS, personId, slugify, tick } from './context.ts';
import { testIdentity } from './tests.ts';
import { attachmentPeriod, DAY_MS, DEPARTMENTS, EFFORT_ESTIMATES, EVIDENCE_STATUSES } from '../shared/vocabulary.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

const STATUS_WEIGHTS: readonly (readonly [EvidenceStatus, number])[] = [
  ['uploaded', 40],
  ['not_uploaded', 15],
  ['needs_attention', 8],
  ['draft', 8],
  ['needs_review', 10],
  ['pending_approval', 10],
  ['needs_revision', 9],
];
/** statuses whose newest attachment covers the current period */
const SUBMITTED = new Set<EvidenceStatus>(['uploaded', 'pending_approval']);
const PERIOD_DAYS: Readonly<Record<string, number>> = { monthly: 30, quarterly: 91, semi_annually: 182, yearly: 365, one_time: 365 };
const FILES = [
  ['png', 'image'],
  ['png', 'image'],
  ['csv', 'csv'],
  ['xlsx', 'excel'],
  ['docx', 'word'],
  ['json', 'json'],
  ['zip', 'archive'],
  ['eml', 'email'],
  ['md', 'markdown'],
] as const;

const DRAW = {
  templates: EVIDENCE_TEMPLATES,
  statuses: EVIDENCE_STATUSES,
  weights: STATUS_WEIGHTS,
  addedDays: [600, 15],
  gaps: [EVIDENCE_GAPS, 0.15],
} as const;

export async function generateEvidence(ctx: Ctx, model: ControlModel): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  for (let i = 0; i < ctx.plan.evidence; i++) {
    const { rng, template, name, id, status, isRelevant, stamp, gaps } = artifactBasics(ctx, NS.evidence, i, DRAW);
    const recurrence = template.recurrence;

    // attachments: the latest in the current period when uploaded, older ones a period apart
    const period = PERIOD_DAYS[recurrence] * DAY_MS;
    const attachmentCount = status === 'not_uploaded' ? 0 : rng.int(1, 3);
    let latestDate: number | null = null;
    const attachmentRows = [];
    for (let a = 0; a < attachmentCount; a++) {
      const newest = status === 'uploaded' ? ctx.now - DAY_MS : ctx.now - period / 3;
      let evidenceDate = rng.time(newest - period / 2, newest) - a * period;
      // a record shown as submitted has its newest attachment in the current calendar period, or
      // time would make it stale at once (src/domain/time/due.ts)
      const current = attachmentPeriod(recurrence, ctx.now).periodStart;
      if (a === 0 && SUBMITTED.has(status) && current !== null && evidenceDate < current)
        evidenceDate = current + Math.floor((ctx.now - current) / 2);
      latestDate = Math.max(latestDate ?? 0, evidenceDate);
      const external = rng.chance(0.1);
      const [ext, type] = rng.pick(FILES);
      const addedOn = Math.min(ctx.now, evidenceDate + rng.int(0, 3) * DAY_MS);
      const updated = rng.chance(0.25);
      const { periodStart, periodEnd } = attachmentPeriod(recurrence, evidenceDate);
      attachmentRows.push({
        id: ctx.ids.next(NS.attachment),
        organization_id: org,
        evidence_id: id,
        display_name: external ? `${name} (shared drive)` : `${slugify(name)}-${new Date(evidenceDate).toISOString().slice(0, 10)}.${ext}`,
        type: external ? 'link' : type,
        url: external ? `https://drive.example.com/evidence/${slugify(name)}` : null,
        note: rng.chance(0.3)
          ? rng.pick([
              'Exported from the admin console',
              'Covers all production accounts',
              'Reviewed by the control owner',
              'Sample of 25 items',
            ])
          : null,
        blob_key: null,
        size_bytes: external ? null : rng.int(8_000, 4_000_000),
        sha256: null,
        upload_id: null,
        evidence_date: evidenceDate,
        period_start: periodStart,
        period_end: periodEnd,
        added_by: personId(ctx, rng),
        added_on: addedOn,
        updated_by: updated ? personId(ctx, rng) : null,
        updated_on: updated ? rng.time(addedOn, ctx.now) : null,
      });
    }

    let nextReview: number | null = null;
    if (recurrence !== 'one_time' && rng.chance(0.85)) {
      nextReview =
        latestDate !== null ? (attachmentPeriod(recurrence, latestDate).periodEnd ?? latestDate) + 1 : ctx.now + rng.int(7, 120) * DAY_MS;
    }
    const revision = status === 'needs_revision';
    // when time makes the record stale (migration 0016): just after its latest attachment period
    const periodEnds = attachmentRows.map((r) => r.period_end).filter((e): e is number => e !== null);
    const staleAt = periodEnds.length > 0 ? Math.max(...periodEnds) + 1 : null;
    w.add('evidence', {
      id,
      organization_id: org,
      name,
      status,
      department: rng.chance(0.12) ? null : rng.pick(DEPARTMENTS),
      is_relevant: isRelevant,
      not_relevant_reason: isRelevant ? null : rng.pick(NOT_RELEVANT_REASONS),
      next_review_date: nextReview,
      gap_status: gaps.length > 0 ? 'gaps_detected' : 'no_gaps',
      gaps: json(gaps),
      recurrence,
      effort_estimate: rng.pick(EFFORT_ESTIMATES),
      source: rng.weighted([
        ['template', 60],
        ['custom', 30],
        ['auditor_request', 10],
      ] as const),
      collection_method: template.method,
      requirement_text: `Provide ${lowerFirst(template.name)} covering the ${recurrence === 'one_time' ? 'current state' : `latest ${recurrence.replace('_', '-')} period`}, showing the system name and date.`,
      revision_requested_by: revision ? personId(ctx, rng) : null,
      revision_requested_on: revision ? ctx.now - rng.int(1, 20) * DAY_MS : null,
      rejection_reason: revision ? rng.pick(REVISION_REASONS) : null,
      ...stamp,
      stale_at: staleAt,
    });
    for (const row of attachmentRows) w.add('attachments', row);

    addPeople(ctx, rng, 'evidence', id, 'assignee', rng.chance(0.92) ? rng.int(1, 2) : 0);
    addPeople(ctx, rng, 'evidence', id, 'approver', status === 'pending_approval' ? rng.int(1, 2) : rng.chance(0.35) ? 1 : 0);
    addEntities(ctx, rng, 'evidence', id, rng.int(0, 2));
    if (rng.chance(0.25)) addTickets(ctx, rng, 'evidence', id, rng.int(1, 2));
    if (rng.chance(template.method === 'manual' ? 0.1 : 0.5)) {
      for (const j of rng.distinct(ctx.plan.tests, rng.int(1, 2))) {
        w.add('evidence_tests', { organization_id: org, evidence_id: id, test_id: testIdentity(ctx, j).id });
      }
    }

    const complete = isRelevant && status === 'uploaded';
    const controls = rng.chance(0.03) ? [] : model.pick(rng, template.categories, isRelevant, complete, rng.int(1, 3));
    mapArtifact(ctx, model, rng, 'evidence', id, controls);
    await tick(ctx);
  }
}
