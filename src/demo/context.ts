// What every part of the generator shares: the plan (how many of each record a scale gives), the
// ID and randomness sources, the row writer, and small helpers that attach people, entities,
// tickets and risks to a record the same way everywhere.
import type { Db } from '../storage/db/connect.ts';
import { BulkWriter, type TableName } from '../storage/db/bulk-insert.ts';
import type { SubjectType } from '../storage/db/schema.ts';
import { IdFactory, type Rng, Seeder } from './random.ts';
import { DAY_MS, TICKET_SOURCES } from '../shared/vocabulary.ts';
import { VARIANT_QUALIFIERS } from './catalogues/artifacts.ts';

/** ID and randomness namespaces (one per record kind; see random.ts). */
export const NS = {
  person: 1,
  entity: 2,
  application: 3,
  framework: 4,
  requirement: 5,
  control: 6,
  policy: 7,
  evidence: 8,
  test: 9,
  vulnerability: 10,
  risk: 11,
  customField: 12,
  policyDocument: 13,
  policyVersion: 14,
  attachment: 15,
  testResource: 16,
  testHistory: 17,
  ticket: 18,
  vulnerabilityResource: 19,
  // randomness only
  controlClass: 30,
  controlRequirements: 31,
  frameworks: 32,
} as const;

/** Parents before children, so each flushed transaction satisfies the foreign keys. */
export const TABLE_ORDER: readonly TableName[] = [
  'people',
  'entities',
  'applications',
  'frameworks',
  'requirements',
  'risks',
  'custom_fields',
  'controls',
  'control_requirements',
  'policies',
  'policy_documents',
  'policy_versions',
  'evidence',
  'attachments',
  'tests',
  'test_applications',
  'test_resources',
  'test_history',
  'evidence_tests',
  'control_artifacts',
  'artifact_requirements',
  'subject_people',
  'subject_entities',
  'risk_links',
  'tickets',
  'vulnerabilities',
  'vulnerability_resources',
  'custom_field_values',
];

export interface Plan {
  people: number;
  entities: number;
  risks: number;
  controls: number;
  policies: number;
  evidence: number;
  tests: number;
  vulnerabilities: number;
}

/**
 * Record counts for a scale. Controls grow as 150 × scale; artifacts (policies, evidence, tests)
 * as base × (2 × scale − 1) above scale 1, so scale 20 gives ~3,000 controls and ~10,000
 * artifacts; findings as 500 × scale, so scale 2000 gives a million.
 */
export function planFor(scale: number): Plan {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  const artifacts = scale <= 1 ? scale : 2 * scale - 1;
  const at = (base: number, factor: number, min: number) => Math.max(min, Math.round(base * factor));
  return {
    people: Math.max(8, Math.round(30 + 10 * (scale - 1))),
    entities: Math.max(4, Math.round(8 + 2 * (scale - 1))),
    risks: at(25, scale, 5),
    controls: at(150, scale, 10),
    policies: at(60, artifacts, 1),
    evidence: at(120, artifacts, 1),
    tests: at(80, artifacts, 1),
    vulnerabilities: at(500, scale, 1),
  };
}

export interface Person {
  id: string;
  name: string;
  email: string;
}

export interface Ctx {
  db: Db;
  organizationId: string;
  now: number;
  plan: Plan;
  seeder: Seeder;
  ids: IdFactory;
  writer: BulkWriter;
  people: Person[];
  entityIds: string[];
  applicationIds: Map<string, string>;
  /** requirement IDs by framework, in catalogue order */
  requirementIds: Map<string, string>;
  customFields: { id: string; fieldType: string; options: string[]; fill: number; samples?: string[] }[];
  /** organization tag in test IDs */
  orgTag: string;
  /** progress units done and planned */
  progress: { done: number; total: number; report?: (done: number, total: number) => void };
  ticketSerial: number;
}

export function makeCtx(db: Db, organizationId: string, seed: number, now: number, scale: number, orgTagValue: string): Ctx {
  return {
    db,
    organizationId,
    now,
    plan: planFor(scale),
    seeder: new Seeder(seed),
    ids: new IdFactory(organizationId, seed),
    writer: new BulkWriter(db, { order: TABLE_ORDER }),
    people: [],
    entityIds: [],
    applicationIds: new Map(),
    requirementIds: new Map(),
    customFields: [],
    orgTag: orgTagValue,
    progress: { done: 0, total: 0 },
    ticketSerial: 0,
  };
}

/** Counts one generated record and flushes the writer when its buffer is full. */
export async function tick(ctx: Ctx): Promise<void> {
  ctx.progress.done++;
  if (await ctx.writer.maybeFlush()) ctx.progress.report?.(ctx.progress.done, ctx.progress.total);
}

export function personId(ctx: Ctx, rng: Rng): string {
  return ctx.people[Math.floor(rng.next() * ctx.people.length)].id;
}

/** added/modified stamps: added some time in the window before now, maybe modified since */
export function stamps(ctx: Ctx, rng: Rng, oldestDays: number, newestDays = 10) {
  const addedOn = rng.time(ctx.now - oldestDays * DAY_MS, ctx.now - newestDays * DAY_MS);
  const modified = rng.chance(0.8);
  return {
    added_by: personId(ctx, rng),
    added_on: addedOn,
    last_modified_by: modified ? personId(ctx, rng) : null,
    modified_on: modified ? rng.time(addedOn, ctx.now) : null,
  };
}

/** people linked with a role; the first assignee is the primary one */
export function addPeople(
  ctx: Ctx,
  rng: Rng,
  subjectType: SubjectType,
  subjectId: string,
  role: 'assignee' | 'approver',
  count: number,
): void {
  const picks = rng.distinct(ctx.people.length, count);
  picks.forEach((p, position) => {
    ctx.writer.add('subject_people', {
      organization_id: ctx.organizationId,
      subject_type: subjectType,
      subject_id: subjectId,
      person_id: ctx.people[p].id,
      role,
      is_primary: role === 'assignee' && position === 0,
      position,
    });
  });
}

export function addEntities(ctx: Ctx, rng: Rng, subjectType: SubjectType, subjectId: string, count: number): void {
  for (const e of rng.distinct(ctx.entityIds.length, count)) {
    ctx.writer.add('subject_entities', {
      organization_id: ctx.organizationId,
      subject_type: subjectType,
      subject_id: subjectId,
      entity_id: ctx.entityIds[e],
    });
  }
}

/** Jira-like (SEC-123 on jira.example.com) or Linear-like (ENG-123 on linear.example.com) tickets */
export function addTickets(ctx: Ctx, rng: Rng, subjectType: SubjectType, subjectId: string, count: number): void {
  for (let k = 0; k < count; k++) {
    const source = rng.pick(TICKET_SOURCES);
    const number = 100 + ctx.ticketSerial++;
    const key = source === 'jira' ? `${rng.pick(['SEC', 'GRC', 'OPS'])}-${number}` : `${rng.pick(['ENG', 'INF'])}-${number}`;
    const url = source === 'jira' ? `https://jira.example.com/browse/${key}` : `https://linear.example.com/acme/issue/${key}`;
    ctx.writer.add('tickets', {
      id: ctx.ids.next(NS.ticket),
      organization_id: ctx.organizationId,
      subject_type: subjectType,
      subject_id: subjectId,
      ticket_key: key,
      source,
      url,
    });
  }
}

export function addRiskLinks(ctx: Ctx, rng: Rng, subjectType: SubjectType, subjectId: string, count: number): void {
  for (const r of rng.distinct(ctx.plan.risks, count)) {
    ctx.writer.add('risk_links', {
      organization_id: ctx.organizationId,
      risk_id: ctx.ids.at(NS.risk, r),
      subject_type: subjectType,
      subject_id: subjectId,
    });
  }
}

/** a name for variant `v` (≥ 1) of a catalogue entry: "Name (Qualifier)", numbered after a full round */
export function variantName(name: string, v: number, offset: number, qualifiers: readonly string[]): string {
  const round = Math.floor((v - 1) / qualifiers.length);
  const q = qualifiers[(v - 1 + offset) % qualifiers.length];
  return `${name} (${q}${round > 0 ? ` ${round + 1}` : ''})`;
}

/** "Access Review (EU)" → "access-review-eu": a name as a file name */
export const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** How the policies or the evidence records are drawn (artifactBasics). */
export interface ArtifactDraw<T extends { name: string }, S> {
  templates: readonly T[];
  statuses: readonly S[];
  weights: readonly (readonly [S, number])[];
  /** the window the record was added in, in days before now (stamps) */
  addedDays: readonly [oldest: number, newest: number];
  /** the catalogue of gaps, and the chance of some when the status does not say */
  gaps: readonly [catalogue: readonly string[], chance: number];
}

/**
 * What the i-th policy or evidence record starts from: its random stream, catalogue template,
 * name, ID, status (the first ones take each status in turn, the rest follow the weights),
 * relevance (the one after those is not relevant, then 8% at random), stamps and gaps (always
 * some when it needs attention, none before anything was uploaded).
 */
export function artifactBasics<T extends { name: string }, S extends string>(ctx: Ctx, ns: number, i: number, draw: ArtifactDraw<T, S>) {
  const { templates, statuses } = draw;
  const rng = ctx.seeder.rng(ns, i);
  const template = templates[i % templates.length];
  const v = Math.floor(i / templates.length);
  const name = v === 0 ? template.name : variantName(template.name, v, i % templates.length, VARIANT_QUALIFIERS);
  const id = ctx.ids.at(ns, i);
  const status: S = i < statuses.length ? statuses[i] : rng.weighted(draw.weights);
  const isRelevant = i === statuses.length ? false : rng.chance(0.92);
  const stamp = stamps(ctx, rng, ...draw.addedDays);
  const [gapCatalogue, gapChance] = draw.gaps;
  const gaps =
    status === 'needs_attention' || (status !== 'not_uploaded' && rng.chance(gapChance)) ? rng.sample(gapCatalogue, rng.int(1, 3)) : [];
  return { rng, template, name, id, status, isRelevant, stamp, gaps };
}

/** "Quarterly access review" → "quarterly access review"; acronyms ("MFA is…", "TLS…") stay as they are */
export function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

export function json(values: readonly string[]): string {
  return JSON.stringify(values);
}
