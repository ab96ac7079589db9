// Policies, their documents and published versions. The first seven take each status in turn so
// every status exists at any scale ≥ 1; the rest follow a realistic mix.
import { NOT_RELEVANT_REASONS, POLICY_GAPS, POLICY_TEMPLATES } from './catalogues/artifacts.ts';
import { type ControlModel, mapArtifact } from './controls.ts';
import { addEntities, addPeople, addTickets, artifactBasics, type Ctx, json, NS, personId, slugify, tick } from './context.ts';
import { DAY_MS, DEPARTMENTS, EFFORT_ESTIMATES, POLICY_BEHAVIORS, POLICY_STATUSES } from '../shared/vocabulary.ts';

type PolicyStatus = (typeof POLICY_STATUSES)[number];

const STATUS_WEIGHTS: readonly (readonly [PolicyStatus, number])[] = [
  ['published', 40],
  ['draft', 10],
  ['not_uploaded', 8],
  ['needs_attention', 8],
  ['draft_approved', 8],
  ['needs_review', 14],
  ['pending_approval', 12],
];
/** statuses of a policy that has been published at least once */
const PUBLISHED_ISH = new Set<PolicyStatus>(['published', 'needs_review', 'needs_attention']);
const DOCUMENT_FILES = [
  ['docx', 'word'],
  ['md', 'markdown'],
  ['pptx', 'powerpoint'],
  ['txt', 'text'],
] as const;

const DRAW = {
  templates: POLICY_TEMPLATES,
  statuses: POLICY_STATUSES,
  weights: STATUS_WEIGHTS,
  addedDays: [700, 20],
  gaps: [POLICY_GAPS, 0.2],
} as const;

export async function generatePolicies(ctx: Ctx, model: ControlModel): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  for (let i = 0; i < ctx.plan.policies; i++) {
    const { rng, template, name, id, status, isRelevant, stamp, gaps } = artifactBasics(ctx, NS.policy, i, DRAW);
    const published = PUBLISHED_ISH.has(status);

    const versions = published ? rng.int(1, 4) : 0;
    const major = rng.int(1, 3);
    const versionName = (k: number) => `${major}.${k}`;
    const publishedOn = published ? rng.time(Math.max(stamp.added_on, ctx.now - 400 * DAY_MS), ctx.now - DAY_MS) : null;
    const publishedBy = published ? personId(ctx, rng) : null;

    let nextReview: number | null;
    if (status === 'needs_review') nextReview = ctx.now - rng.int(1, 90) * DAY_MS;
    else if (published) nextReview = rng.chance(0.9) ? publishedOn! + 365 * DAY_MS : null;
    else nextReview = rng.chance(0.6) ? ctx.now + rng.int(14, 300) * DAY_MS : null;
    // a policy shown as published is not past its review date, or time would move it at once (src/domain/time/due.ts)
    if (status === 'published' && nextReview !== null && nextReview <= ctx.now) nextReview = ctx.now + 30 * DAY_MS;

    const recurrence = rng.weighted([
      ['yearly', 70],
      ['semi_annually', 20],
      ['quarterly', 10],
    ] as const);
    w.add('policies', {
      id,
      organization_id: org,
      custom_id: `POL-${String(i + 1).padStart(3, '0')}`,
      name,
      status,
      department: rng.chance(0.12) ? null : rng.pick(DEPARTMENTS),
      is_relevant: isRelevant,
      not_relevant_reason: isRelevant ? null : rng.pick(NOT_RELEVANT_REASONS),
      next_review_date: nextReview,
      gap_status: gaps.length > 0 ? 'gaps_detected' : 'no_gaps',
      ai_detected_gaps: json(gaps),
      policy_behavior: rng.pick(POLICY_BEHAVIORS),
      version_number: published ? versionName(versions - 1) : status === 'not_uploaded' ? null : '0.1',
      effort_estimate: rng.pick(EFFORT_ESTIMATES),
      recurrence,
      source: rng.weighted([
        ['template', 60],
        ['custom', 30],
        ['imported', 10],
      ] as const),
      requirement_text: `The ${name} states its scope, owners and exceptions, is approved by leadership and is reviewed ${recurrence === 'yearly' ? 'every year' : recurrence === 'quarterly' ? 'every quarter' : 'twice a year'}.`,
      published_by: publishedBy,
      published_on: publishedOn,
      ...stamp,
    });

    if (status !== 'not_uploaded') {
      const documents = rng.int(1, 2);
      for (let d = 0; d < documents; d++) {
        const external = rng.chance(0.15);
        const [ext, type] = rng.pick(DOCUMENT_FILES);
        const addedOn = rng.time(stamp.added_on, ctx.now);
        const updated = rng.chance(0.4);
        w.add('policy_documents', {
          id: ctx.ids.next(NS.policyDocument),
          organization_id: org,
          policy_id: id,
          display_name: external ? `${name} (wiki)` : `${slugify(name)}${d > 0 ? `-appendix-${d}` : ''}.${ext}`,
          type: external ? 'link' : type,
          url: external ? `https://wiki.example.com/security/${slugify(name)}` : null,
          note: rng.chance(0.3) ? rng.pick(['Approved copy', 'Redlined draft', 'Signed by the CISO', 'Translated version']) : null,
          added_by: personId(ctx, rng),
          added_on: addedOn,
          updated_by: updated ? personId(ctx, rng) : null,
          updated_on: updated ? rng.time(addedOn, ctx.now) : null,
        });
      }
    }
    for (let k = 0; k < versions; k++) {
      const on = k === versions - 1 ? publishedOn! : publishedOn! - (versions - 1 - k) * rng.int(60, 200) * DAY_MS;
      w.add('policy_versions', {
        id: ctx.ids.next(NS.policyVersion),
        organization_id: org,
        policy_id: id,
        version_name: versionName(k),
        published_by: k === versions - 1 ? publishedBy : personId(ctx, rng),
        published_on: on,
      });
    }

    addPeople(ctx, rng, 'policy', id, 'assignee', rng.chance(0.93) ? rng.int(1, 2) : 0);
    const needsApprovers = status === 'pending_approval' || status === 'draft_approved' || published;
    addPeople(ctx, rng, 'policy', id, 'approver', needsApprovers ? rng.int(1, 2) : rng.chance(0.3) ? 1 : 0);
    addEntities(ctx, rng, 'policy', id, rng.int(0, 3));
    if (rng.chance(0.2)) addTickets(ctx, rng, 'policy', id, rng.int(1, 2));

    const complete = isRelevant && status === 'published';
    const controls = rng.chance(0.03) ? [] : model.pick(rng, template.categories, isRelevant, complete, rng.int(1, 4));
    mapArtifact(ctx, model, rng, 'policy', id, controls);
    await tick(ctx);
  }
}
