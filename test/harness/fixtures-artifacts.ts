// Exact policies and evidence records with every link they can carry (people, entities, mappings,
// tickets, documents, versions, attachments, tests), and `seedArtifactWorld`: one small, fully
// known organization that the policy and evidence contract tests share, with the filter cases
// whose answers are known by construction.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../src/storage/db/connect.ts';
import type { Database } from '../../src/storage/db/schema.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import { fixtures } from './fixtures.ts';

export const T0 = Date.UTC(2025, 0, 1);
export const T1 = Date.UTC(2025, 6, 1);
export const T2 = Date.UTC(2025, 9, 1);
/** the clock of servers that test periods (attachments' isCurrentPeriod) */
export const NOW = Date.UTC(2026, 0, 15);
export const D1 = Date.UTC(2026, 5, 1);
export const D2 = Date.UTC(2026, 8, 1);

export type ArtifactKind = 'policy' | 'evidence';

/** Fields both kinds have. People are person IDs; the first assignee is the primary one. */
export interface ArtifactSpec {
  name: string;
  status: string;
  department?: string | null;
  isRelevant?: boolean;
  notRelevantReason?: string | null;
  nextReviewDate?: number | null;
  /** the AI-detected gaps of a policy, the gaps of an evidence record */
  gaps?: string[];
  effortEstimate?: string | null;
  recurrence?: string | null;
  source?: string | null;
  requirementText?: string | null;
  addedBy?: string | null;
  addedOn?: number;
  lastModifiedBy?: string | null;
  modifiedOn?: number | null;
  assignees?: string[];
  approvers?: string[];
  entityIds?: string[];
  controlIds?: string[];
  requirementIds?: string[];
  tickets?: Array<{ key: string; source: string; url: string }>;
}

export interface PolicySpec extends ArtifactSpec {
  customId?: string;
  policyBehavior?: string | null;
  versionNumber?: string | null;
  publishedBy?: string | null;
  publishedOn?: number | null;
}

export interface EvidenceSpec extends ArtifactSpec {
  collectionMethod?: string | null;
  revisionRequestedBy?: string | null;
  revisionRequestedOn?: number | null;
  rejectionReason?: string | null;
  testIds?: string[];
}

export interface FileSpec {
  displayName: string;
  type: string;
  url?: string | null;
  note?: string | null;
  addedBy?: string | null;
  addedOn?: number;
  updatedBy?: string | null;
  updatedOn?: number | null;
}

export interface AttachmentSpec extends FileSpec {
  /** a file the service stores (it has a blob); its row may even hold a URL, which must never be shown */
  hosted?: boolean;
  evidenceDate: number;
  periodStart?: number | null;
  periodEnd?: number | null;
}

function rawArtifactFixtures(k: Kysely<Database>, org: string) {
  const common = (s: ArtifactSpec) => ({
    organization_id: org,
    name: s.name,
    status: s.status,
    department: s.department ?? null,
    is_relevant: s.isRelevant ?? true,
    not_relevant_reason: s.notRelevantReason ?? null,
    next_review_date: s.nextReviewDate ?? null,
    gap_status: (s.gaps ?? []).length > 0 ? 'gaps_detected' : 'no_gaps',
    effort_estimate: s.effortEstimate ?? null,
    recurrence: s.recurrence ?? null,
    source: s.source ?? null,
    requirement_text: s.requirementText ?? null,
    added_by: s.addedBy ?? null,
    added_on: s.addedOn ?? T0,
    last_modified_by: s.lastModifiedBy ?? null,
    modified_on: s.modifiedOn ?? null,
  });

  /** People, entities, mappings and tickets of one artifact, one multi-row insert per table. */
  async function links(type: ArtifactKind, id: string, s: ArtifactSpec) {
    const people = [
      ...(s.assignees ?? []).map((p, i) => ({ person_id: p, role: 'assignee' as const, is_primary: i === 0, position: i })),
      ...(s.approvers ?? []).map((p, i) => ({ person_id: p, role: 'approver' as const, is_primary: false, position: i })),
    ];
    const base = { organization_id: org, subject_type: type, subject_id: id };
    if (people.length)
      await k
        .insertInto('subject_people')
        .values(people.map((p) => ({ ...base, ...p })))
        .execute();
    if (s.entityIds?.length)
      await k
        .insertInto('subject_entities')
        .values(s.entityIds.map((e) => ({ ...base, entity_id: e })))
        .execute();
    if (s.tickets?.length) {
      await k
        .insertInto('tickets')
        .values(s.tickets.map((t) => ({ ...base, id: randomUUID(), ticket_key: t.key, source: t.source, url: t.url })))
        .execute();
    }
    const artifact = { organization_id: org, artifact_type: type, artifact_id: id };
    if (s.controlIds?.length)
      await k
        .insertInto('control_artifacts')
        .values(s.controlIds.map((c) => ({ ...artifact, control_id: c })))
        .execute();
    if (s.requirementIds?.length) {
      await k
        .insertInto('artifact_requirements')
        .values(s.requirementIds.map((r) => ({ ...artifact, requirement_id: r })))
        .execute();
    }
  }

  const file = (s: FileSpec) => ({
    organization_id: org,
    display_name: s.displayName,
    type: s.type,
    url: s.url ?? null,
    note: s.note ?? null,
    added_by: s.addedBy ?? null,
    added_on: s.addedOn ?? T0,
    updated_by: s.updatedBy ?? null,
    updated_on: s.updatedOn ?? null,
  });

  return {
    async policy(s: PolicySpec): Promise<string> {
      const id = randomUUID();
      await k
        .insertInto('policies')
        .values({
          ...common(s),
          id,
          custom_id: s.customId ?? `POL-${id.slice(0, 4)}`,
          ai_detected_gaps: JSON.stringify(s.gaps ?? []),
          policy_behavior: s.policyBehavior ?? null,
          version_number: s.versionNumber ?? null,
          published_by: s.publishedBy ?? null,
          published_on: s.publishedOn ?? null,
        })
        .execute();
      await links('policy', id, s);
      return id;
    },
    async evidence(s: EvidenceSpec): Promise<string> {
      const id = randomUUID();
      await k
        .insertInto('evidence')
        .values({
          ...common(s),
          id,
          gaps: JSON.stringify(s.gaps ?? []),
          collection_method: s.collectionMethod ?? null,
          revision_requested_by: s.revisionRequestedBy ?? null,
          revision_requested_on: s.revisionRequestedOn ?? null,
          rejection_reason: s.rejectionReason ?? null,
        })
        .execute();
      await links('evidence', id, s);
      if (s.testIds?.length) {
        await k
          .insertInto('evidence_tests')
          .values(s.testIds.map((t) => ({ organization_id: org, evidence_id: id, test_id: t })))
          .execute();
      }
      return id;
    },
    async document(policyId: string, s: FileSpec): Promise<void> {
      await k
        .insertInto('policy_documents')
        .values({ ...file(s), id: randomUUID(), policy_id: policyId })
        .execute();
    },
    async version(policyId: string, versionName: string, publishedOn: number, publishedBy: string | null = null): Promise<void> {
      await k
        .insertInto('policy_versions')
        .values({
          id: randomUUID(),
          organization_id: org,
          policy_id: policyId,
          version_name: versionName,
          published_by: publishedBy,
          published_on: publishedOn,
        })
        .execute();
    },
    async attachment(evidenceId: string, s: AttachmentSpec): Promise<void> {
      const id = randomUUID();
      await k
        .insertInto('attachments')
        .values({
          ...file(s),
          id,
          evidence_id: evidenceId,
          blob_key: s.hosted ? `${org}/${id}` : null,
          size_bytes: s.hosted ? 1024 : null,
          sha256: s.hosted ? 'ab'.repeat(32) : null,
          upload_id: null,
          evidence_date: s.evidenceDate,
          period_start: s.periodStart ?? null,
          period_end: s.periodEnd ?? null,
        })
        .execute();
    },
  };
}

type Raw = ReturnType<typeof rawArtifactFixtures>;

/**
 * The helpers above, each followed by a bump of the organization's data version (as every real
 * write does), so results cached before the insert are not served after it.
 */
export function artifactFixtures(db: Db, organizationId: string): Raw {
  const raw = rawArtifactFixtures(db.kysely, organizationId);
  const bumped =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args);
      await bumpDataVersions(db.kysely, organizationId, DATA_KINDS);
      return result;
    };
  return {
    policy: bumped(raw.policy),
    evidence: bumped(raw.evidence),
    document: bumped(raw.document),
    version: bumped(raw.version),
    attachment: bumped(raw.attachment),
  };
}

// ---- The shared world of the contract tests ----

/** Statuses given to the world's artifacts A, B, C, D (in that order) of each kind. */
export const WORLD_STATUSES: Record<ArtifactKind, [string, string, string, string]> = {
  policy: ['published', 'draft', 'needs_review', 'pending_approval'],
  evidence: ['uploaded', 'not_uploaded', 'needs_review', 'pending_approval'],
};
/** Names of A–D; lists are ordered by name, so A–D is also the list order. */
export const WORLD_NAMES = { A: 'Access control', B: 'Business continuity', C: 'Change management', D: 'Data handling' } as const;
export type Letter = keyof typeof WORLD_NAMES;

export interface World {
  people: { ada: string; bob: string; cy: string };
  entities: { E1: string; E2: string };
  frameworks: { F1: string; F2: string };
  requirements: { RA1: string; RA2: string; RB1: string };
  controls: { C1: string; C2: string };
  tests: { T1: string; T2: string };
  /** the four artifacts' IDs */
  ids: Record<Letter, string>;
}

/**
 * People: Ada (`ada+grc@example.com`), Bob (`Bob.Builder@Example.com`, mixed case), Cy.
 * Frameworks Alpha (requirements) and Beta (B-1); control CTL-1 and CTL-2 (B-1).
 *
 * | | status | department | relevant | next review | assignees | approvers | entities | requirements | controls |
 * |---|---|---|---|---|---|---|---|---|---|
 * | A | 1st | Engineering | yes | D1 | Ada*, Bob | Cy | E1 | A-1, B-1 | CTL-1 |
 * | B | 2nd | — | no | — | — | — | — | — | — |
 * | C | 3rd | engineering | yes | D2 | Cy* | Ada, Bob | E1, E2 | A-2 | CTL-2 |
 * | D | 4th | Security | yes | D1 | Bob* | — | E2 | B-1 | CTL-1, CTL-2 |
 *
 * A also has every optional field and a ticket; B has only a not-relevant reason; the rest of
 * C and D is empty.
 */
export async function seedArtifactWorld(db: Db, organizationId: string, kind: ArtifactKind): Promise<World> {
  const f = fixtures(db, organizationId);
  const a = artifactFixtures(db, organizationId);
  const people = {
    ada: await f.person('Ada Admin', 'ada+grc@example.com'),
    bob: await f.person('Bob Builder', 'Bob.Builder@Example.com'),
    cy: await f.person('Cy Chen', 'cy@example.com'),
  };
  const entities = { E1: await f.entity('Payments'), E2: await f.entity('Platform') };
  const frameworks = { F1: await f.framework('Alpha'), F2: await f.framework('Beta') };
  const requirements = {
    RA1: await f.requirement(frameworks.F1, 'A-1'),
    RA2: await f.requirement(frameworks.F1, 'A-2'),
    RB1: await f.requirement(frameworks.F2, 'B-1'),
  };
  const controls = {
    C1: await f.control('CTL-1', { requirementIds: [requirements.RA1] }),
    C2: await f.control('CTL-2', { requirementIds: [requirements.RB1] }),
  };
  const tests = { T1: await f.test('passing', { integrationFailing: true }), T2: await f.test('fix_required') };
  const [sA, sB, sC, sD] = WORLD_STATUSES[kind];
  const specs: Record<Letter, PolicySpec & EvidenceSpec> = {
    A: {
      name: WORLD_NAMES.A,
      status: sA,
      department: 'Engineering',
      nextReviewDate: D1,
      gaps: ['No owner named', 'Review overdue'],
      effortEstimate: 'medium',
      recurrence: 'yearly',
      source: 'template',
      requirementText: 'Show who may access what.',
      addedBy: people.ada,
      addedOn: T0,
      lastModifiedBy: people.bob,
      modifiedOn: T2,
      assignees: [people.ada, people.bob],
      approvers: [people.cy],
      entityIds: [entities.E1],
      requirementIds: [requirements.RA1, requirements.RB1],
      controlIds: [controls.C1],
      tickets: [
        { key: 'SEC-2', source: 'jira', url: 'https://jira.example.com/browse/SEC-2' },
        { key: 'SEC-1', source: 'linear', url: 'https://linear.example.com/SEC-1' },
      ],
      customId: 'POL-001',
      policyBehavior: 'requires_acknowledgement',
      versionNumber: '2.0',
      publishedBy: people.ada,
      publishedOn: T1,
      collectionMethod: 'manual',
      revisionRequestedBy: people.cy,
      revisionRequestedOn: T2,
      rejectionReason: 'The screenshot is cropped.',
      testIds: [tests.T2, tests.T1],
    },
    B: { name: WORLD_NAMES.B, status: sB, isRelevant: false, notRelevantReason: 'Not used by this organization', customId: 'POL-002' },
    C: {
      name: WORLD_NAMES.C,
      status: sC,
      department: 'engineering',
      nextReviewDate: D2,
      addedBy: people.bob,
      assignees: [people.cy],
      approvers: [people.ada, people.bob],
      entityIds: [entities.E1, entities.E2],
      requirementIds: [requirements.RA2],
      controlIds: [controls.C2],
      customId: 'POL-003',
    },
    D: {
      name: WORLD_NAMES.D,
      status: sD,
      department: 'Security',
      nextReviewDate: D1,
      assignees: [people.bob],
      entityIds: [entities.E2],
      requirementIds: [requirements.RB1],
      controlIds: [controls.C1, controls.C2],
      customId: 'POL-004',
    },
  };
  const ids = {} as Record<Letter, string>;
  // inserted out of name order, so the list order is the service's, not the insertion's
  for (const letter of ['C', 'A', 'D', 'B'] as Letter[]) {
    ids[letter] = kind === 'policy' ? await a.policy(specs[letter]) : await a.evidence(specs[letter]);
  }
  return { people, entities, frameworks, requirements, controls, tests, ids };
}

/**
 * Every list filter against the world: the query string and the artifacts it selects, in list
 * order. Emails are sent as a client must (`+` as `%2B`), in any case.
 */
export function filterCases(w: World, kind: ArtifactKind): Array<[query: string, expected: Letter[]]> {
  const [sA, sB, sC, sD] = WORLD_STATUSES[kind];
  const { F1, F2 } = w.frameworks;
  const { C1, C2 } = w.controls;
  const { E1, E2 } = w.entities;
  const unknown = '00000000-0000-0000-0000-000000000000';
  return [
    [`status=${sA}`, ['A']],
    [`status=${sB}`, ['B']],
    [`status=${sA},${sC}`, ['A', 'C']],
    [`status=${sD},%20${sB}`, ['B', 'D']],
    [`frameworkIds=${F1}`, ['A', 'C']],
    [`frameworkIds=${F2}`, ['A', 'D']],
    [`frameworkIds=${F1},${F2}`, ['A', 'C', 'D']],
    [`frameworkIds=${unknown}`, []],
    [`controlIds=${C1}`, ['A', 'D']],
    [`controlIds=${C2}`, ['C', 'D']],
    [`controlIds=${unknown},${C2}`, ['C', 'D']],
    [`entityIds=${E1}`, ['A', 'C']],
    [`entityIds=${E2}`, ['C', 'D']],
    [`entityIds=${E1},%20${E2}`, ['A', 'C', 'D']],
    ['isRelevant=true', ['A', 'C', 'D']],
    ['isRelevant=1', ['A', 'C', 'D']],
    ['isRelevant=false', ['B']],
    ['isRelevant=0', ['B']],
    ['assigneeEmails=ada%2Bgrc@example.com', ['A']],
    ['assigneeEmails=ADA%2BGRC@Example.COM', ['A']],
    ['assigneeEmails=bob.builder@example.com', ['A', 'D']],
    ['assigneeEmails=cy@example.com,%20nobody@example.com', ['C']],
    ['assigneeEmails=nobody@example.com', []],
    ['approverEmails=cy@example.com', ['A']],
    ['approverEmails=ada%2Bgrc@example.com', ['C']],
    ['approverEmails=BOB.BUILDER@EXAMPLE.COM,cy@example.com', ['A', 'C']],
    ['departments=Engineering', ['A', 'C']],
    ['departments=ENGINEERING', ['A', 'C']],
    ['departments=Security', ['D']],
    ['departments=No%20Department', ['B']],
    ['departments=no%20department', ['B']],
    ['departments=No%20Department,%20Security', ['B', 'D']],
    ['departments=Legal', []],
    ['departments=Engine', []],
    [`nextReviewAtFrom=${D1}`, ['A', 'C', 'D']],
    [`nextReviewAtFrom=${D1 + 1}`, ['C']],
    [`nextReviewAtFrom=${D2 + 1}`, []],
    ['nextReviewAtFrom=0', ['A', 'C', 'D']],
    [`nextReviewAtTo=${D1}`, ['A', 'D']],
    [`nextReviewAtTo=${D1 - 1}`, []],
    [`nextReviewAtTo=${D2}`, ['A', 'C', 'D']],
    [`nextReviewAtFrom=${D1}&nextReviewAtTo=${D1}`, ['A', 'D']],
    [`nextReviewAtFrom=${D2}&nextReviewAtTo=${D1}`, []],
    [`status=${sA},${sD}&departments=Security`, ['D']],
    [`entityIds=${E1}&isRelevant=1&nextReviewAtTo=${D1}`, ['A']],
    [`frameworkIds=${F2}&controlIds=${C2}`, ['D']],
    ['assigneeEmails=bob.builder@example.com&approverEmails=cy@example.com', ['A']],
    [`departments=engineering&frameworkIds=${F1}&entityIds=${E2}`, ['C']],
    ['isRelevant=false&departments=Security', []],
  ];
}

/** Invalid list queries: each answers 400 validation_failed naming `field`. */
export function invalidListCases(kind: ArtifactKind): Array<[query: string, field: string]> {
  const otherKindStatus = kind === 'policy' ? 'uploaded' : 'published';
  return [
    ['status=archived', 'status'],
    [`status=${otherKindStatus}`, 'status'],
    ['status=', 'status'],
    [`status=${WORLD_STATUSES[kind][0]},`, 'status'],
    ['status=draft&status=needs_review', 'status'],
    ['fields=unknownField', 'fields'],
    ['fields=addedOn,%20nope', 'fields'],
    ['isRelevant=yes', 'isRelevant'],
    ['isRelevant=', 'isRelevant'],
    ['nextReviewAtFrom=-1', 'nextReviewAtFrom'],
    ['nextReviewAtFrom=1.5', 'nextReviewAtFrom'],
    ['nextReviewAtFrom=soon', 'nextReviewAtFrom'],
    ['nextReviewAtFrom=', 'nextReviewAtFrom'],
    ['nextReviewAtTo=-5', 'nextReviewAtTo'],
    ['nextReviewAtTo=9007199254740993', 'nextReviewAtTo'],
    ['entityIds=', 'entityIds'],
    ['departments=,', 'departments'],
    ['department=Security', 'department'],
    ['limit=10', 'limit'],
  ];
}

// ---- What both contract tests expect of the world ----

export const LETTERS: Letter[] = ['A', 'B', 'C', 'D'];
export const STAMPS = {
  ada: { name: 'Ada Admin', email: 'ada+grc@example.com' },
  bob: { name: 'Bob Builder', email: 'Bob.Builder@Example.com' },
  cy: { name: 'Cy Chen', email: 'cy@example.com' },
};

type Item = Record<string, unknown>;

/** The default list fields both kinds share, per artifact (`department` left out when unassigned). */
export function commonDefaults(w: World): Record<Letter, Item> {
  const { ada, bob, cy } = STAMPS;
  const e1 = { entityId: w.entities.E1, entityName: 'Payments' };
  const e2 = { entityId: w.entities.E2, entityName: 'Platform' };
  return {
    A: {
      department: 'Engineering',
      assignees: [
        { ...ada, isPrimary: true },
        { ...bob, isPrimary: false },
      ],
      approvers: [cy],
      isRelevant: true,
      nextReviewDate: D1,
      entities: [e1],
      gapStatus: 'gaps_detected',
    },
    B: { assignees: [], approvers: [], isRelevant: false, nextReviewDate: null, entities: [], gapStatus: 'no_gaps' },
    C: {
      department: 'engineering',
      assignees: [{ ...cy, isPrimary: true }],
      approvers: [ada, bob],
      isRelevant: true,
      nextReviewDate: D2,
      entities: [e1, e2],
      gapStatus: 'no_gaps',
    },
    D: {
      department: 'Security',
      assignees: [{ ...bob, isPrimary: true }],
      approvers: [],
      isRelevant: true,
      nextReviewDate: D1,
      entities: [e2],
      gapStatus: 'no_gaps',
    },
  };
}

/** The optional list fields both kinds share: each field's value per artifact (no entry = left out). */
export function commonOptionalValues(w: World): Record<string, Partial<Record<Letter, unknown>>> {
  const { F1, F2 } = w.frameworks;
  const { C1, C2 } = w.controls;
  return {
    mappedFrameworkIds: { A: [F1, F2], B: [], C: [F1], D: [F2] },
    mappedControlIds: { A: [C1], B: [], C: [C2], D: [C1, C2] },
    notRelevantReason: { B: 'Not used by this organization' },
    effortEstimate: { A: 'medium' },
    recurrence: { A: 'yearly' },
    source: { A: 'template' },
    addedBy: { A: STAMPS.ada, C: STAMPS.bob },
    addedOn: { A: T0, B: T0, C: T0, D: T0 },
    lastModifiedBy: { A: STAMPS.bob },
    modifiedOn: { A: T2, B: null, C: null, D: null },
  };
}

/** The expected list: `base` items, in list order, with the asked-for optional fields merged in. */
export function itemsWith(
  base: Record<Letter, Item>,
  values: Record<string, Partial<Record<Letter, unknown>>>,
  fields: readonly string[],
): Item[] {
  return LETTERS.map((l) => {
    const item = { ...base[l] };
    for (const f of fields) if (Object.hasOwn(values[f], l)) item[f] = values[f][l];
    return item;
  });
}

/** A's frameworks, controls and requirements, as a get-one shows them. */
export function mappingsOfA(w: World): Item {
  const { F1, F2 } = w.frameworks;
  return {
    mappedFrameworks: [
      { frameworkId: F1, frameworkName: 'Alpha' },
      { frameworkId: F2, frameworkName: 'Beta' },
    ],
    mappedControls: [{ controlId: w.controls.C1, controlCode: 'CTL-1', controlName: 'Control CTL-1' }],
    mappedRequirements: [
      {
        frameworkId: F1,
        frameworkName: 'Alpha',
        requirementId: w.requirements.RA1,
        requirementCode: 'A-1',
        requirementName: 'Requirement A-1',
      },
      {
        frameworkId: F2,
        frameworkName: 'Beta',
        requirementId: w.requirements.RB1,
        requirementCode: 'B-1',
        requirementName: 'Requirement B-1',
      },
    ],
  };
}

export const NO_MAPPINGS = { mappedFrameworks: [], mappedControls: [], mappedRequirements: [] };

/** A's tickets, as the `tickets` expansion shows them (ordered by ticket ID). */
export const TICKETS_OF_A = [
  { ticketId: 'SEC-1', source: 'linear', url: 'https://linear.example.com/SEC-1' },
  { ticketId: 'SEC-2', source: 'jira', url: 'https://jira.example.com/browse/SEC-2' },
];

export function assertValidationFailed(res: { status: number; body: any }, field: string, label: string) {
  assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'validation_failed', label);
  assert.ok(
    res.body.error.details.some((d: any) => d.field === field),
    `${label}: details name ${field}: ${JSON.stringify(res.body.error.details)}`,
  );
}
