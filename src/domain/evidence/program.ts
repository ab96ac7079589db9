// Evidence as a kind of the program document: the organization's records read in their normal
// form (export and diff), an entry turned into the record it declares (apply), the diff of the
// two by section, the bulk writes of an apply and the events it records. The document shape is
// ./program-schema.ts; the pipeline that runs these is src/domain/program/.
//
// Normal form: IDs for references; sets (entities, requirements, controls, tests) sorted; people
// in their order (the first assignee is the primary one); tickets by key; external links newest
// evidence date first, ties in the document's order. Fields a document leaves out keep what is
// stored when the service itself moves them (status, authorship stamps, an attachment's stamps);
// every other field left out takes its default (no value, an empty list, relevant).
import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { Db } from '../../storage/db/connect.ts';
import type { Database } from '../../storage/db/schema.ts';
import {
  deleteEvidenceTests,
  deleteLinkAttachments,
  insertEvidenceRows,
  insertEvidenceTests,
  insertLinkAttachments,
  readStoredEvidence,
  updateEvidenceRow,
  type EvidenceColumns,
  type LinkAttachmentColumns,
} from '../../storage/db/repositories/evidence-program.ts';
import {
  deleteMappings,
  deleteRecords,
  deleteSubjectLinks,
  insertRows,
  readMappingLinks,
  readSubjectLinks,
  type NameLookups,
} from '../../storage/db/repositories/program-links.ts';
import { listAttachments } from '../../storage/db/repositories/evidence.ts';
import { attachmentPeriod, type EVIDENCE_STATUSES } from '../vocabulary.ts';
import {
  compareStrings,
  keysOf,
  pointerSegment,
  resolveKey,
  resolveKeys,
  resolveRequirements,
  sortedStrings,
  stableSort,
  type ApplyStamp,
  type EntryIssue,
  type Refs,
} from '../program-refs.ts';
import { approversOf, assigneesOf, entitiesOf, mappingsOf, personStampOf, sortTickets, type TicketValue } from '../artifacts/program-shapes.ts';
import { changedFields } from '../events/changes.ts';
import type { NewEvent } from '../events/record.ts';
import { evidenceState, testStatus, type ArtifactState } from '../compliance/rules.ts';
import { setPresent } from '../set-present.ts';
import type { EvidenceEntry, EvidenceLink } from './program-schema.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

export interface LinkRecord {
  displayName: string;
  url: string;
  type: string;
  note: string | null;
  evidenceDate: number;
  periodStart: number | null;
  periodEnd: number | null;
  addedBy: string | null;
  addedOn: number;
  updatedBy: string | null;
  updatedOn: number | null;
}

/** An evidence record in the normal form, references as IDs. */
export interface EvidenceRecord {
  id: string;
  name: string;
  status: string;
  department: string | null;
  isRelevant: boolean;
  notRelevantReason: string | null;
  nextReviewDate: number | null;
  gapStatus: string;
  gaps: string[];
  recurrence: string | null;
  effortEstimate: string | null;
  source: string | null;
  collectionMethod: string | null;
  requirementText: string | null;
  revisionRequestedBy: string | null;
  revisionRequestedOn: number | null;
  rejectionReason: string | null;
  addedBy: string | null;
  addedOn: number;
  lastModifiedBy: string | null;
  modifiedOn: number | null;
  assignees: string[];
  approvers: string[];
  entities: string[];
  requirements: string[];
  controls: string[];
  tests: string[];
  tickets: TicketValue[];
  links: LinkRecord[];
}

/** What the organization holds: its records in the normal form, and the hosted files each keeps. */
export interface CurrentEvidence {
  records: Map<string, EvidenceRecord>;
  hostedCounts: Map<string, number>;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
const newestFirst = (a: LinkRecord, b: LinkRecord) => b.evidenceDate - a.evidenceDate;

function group<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    let list = map.get(k);
    if (!list) map.set(k, (list = []));
    list.push(item);
  }
  return map;
}

/** Every evidence record of the organization in the normal form, in a fixed number of statements. */
export async function readEvidence(db: Kysely<Database>, organizationId: string): Promise<CurrentEvidence> {
  const [stored, links, mappings] = await Promise.all([
    readStoredEvidence(db, organizationId),
    readSubjectLinks(db, organizationId, 'evidence'),
    readMappingLinks(db, organizationId, 'evidence'),
  ]);
  const people = group(links.people, (p) => p.subjectId);
  const entities = group(links.entities, (e) => e.subjectId);
  const tickets = group(links.tickets, (t) => t.subjectId);
  const requirements = group(mappings.requirements, (r) => r.artifactId);
  const controls = group(mappings.controls, (c) => c.artifactId);
  const tests = group(stored.tests, (t) => t.evidenceId);
  const attachments = group(stored.links, (a) => a.evidence_id);
  const records = new Map<string, EvidenceRecord>();
  for (const r of stored.rows) {
    const mine = people.get(r.id) ?? [];
    records.set(r.id, {
      id: r.id,
      name: r.name,
      status: r.status,
      department: r.department,
      isRelevant: Boolean(r.is_relevant),
      notRelevantReason: r.not_relevant_reason,
      nextReviewDate: num(r.next_review_date),
      gapStatus: r.gap_status,
      gaps: JSON.parse(r.gaps) as string[],
      recurrence: r.recurrence,
      effortEstimate: r.effort_estimate,
      source: r.source,
      collectionMethod: r.collection_method,
      requirementText: r.requirement_text,
      revisionRequestedBy: r.revision_requested_by,
      revisionRequestedOn: num(r.revision_requested_on),
      rejectionReason: r.rejection_reason,
      addedBy: r.added_by,
      addedOn: Number(r.added_on),
      lastModifiedBy: r.last_modified_by,
      modifiedOn: num(r.modified_on),
      assignees: mine.filter((p) => p.role === 'assignee').map((p) => p.personId),
      approvers: mine.filter((p) => p.role === 'approver').map((p) => p.personId),
      entities: sortedStrings((entities.get(r.id) ?? []).map((e) => e.entityId)),
      requirements: sortedStrings((requirements.get(r.id) ?? []).map((m) => m.requirementId)),
      controls: sortedStrings((controls.get(r.id) ?? []).map((m) => m.controlId)),
      tests: sortedStrings((tests.get(r.id) ?? []).map((t) => t.testId)),
      tickets: sortTickets((tickets.get(r.id) ?? []).map(({ ticketKey, source, url }) => ({ ticketKey, source, url }))),
      links: (attachments.get(r.id) ?? []).map((a) => ({
        displayName: a.display_name,
        url: a.url!,
        type: a.type,
        note: a.note,
        evidenceDate: Number(a.evidence_date),
        periodStart: num(a.period_start),
        periodEnd: num(a.period_end),
        addedBy: a.added_by,
        addedOn: Number(a.added_on),
        updatedBy: a.updated_by,
        updatedOn: num(a.updated_on),
      })),
    });
  }
  return { records, hostedCounts: stored.hostedCounts };
}

/** A record as the document writes it (export): references by key, defaults and empty values left out. */
export function evidenceEntryOf(record: EvidenceRecord, key: string, refs: Refs): EvidenceEntry {
  const person = (id: string | null) => (id === null ? undefined : refs.keyOf('person', id));
  const entry: EvidenceEntry = { key, name: record.name, status: record.status as EvidenceStatus };
  setPresent(entry, 'department', record.department);
  if (!record.isRelevant) entry.isRelevant = false;
  setPresent(entry, 'notRelevantReason', record.notRelevantReason);
  if (record.nextReviewDate !== null) entry.nextReviewDate = record.nextReviewDate;
  if (record.gapStatus !== defaultGapStatus(record.gaps)) entry.gapStatus = record.gapStatus as EvidenceEntry['gapStatus'];
  if (record.gaps.length > 0) entry.gaps = record.gaps;
  setPresent(entry, 'recurrence', record.recurrence as EvidenceEntry['recurrence']);
  setPresent(entry, 'effortEstimate', record.effortEstimate as EvidenceEntry['effortEstimate']);
  setPresent(entry, 'source', record.source as EvidenceEntry['source']);
  setPresent(entry, 'evidenceCollectionMethod', record.collectionMethod as EvidenceEntry['evidenceCollectionMethod']);
  setPresent(entry, 'evidenceRequirementText', record.requirementText);
  setPresent(entry, 'revisionRequestedBy', person(record.revisionRequestedBy));
  setPresent(entry, 'revisionRequestedOn', record.revisionRequestedOn);
  setPresent(entry, 'rejectionReason', record.rejectionReason);
  setPresent(entry, 'addedBy', person(record.addedBy));
  entry.addedOn = record.addedOn;
  setPresent(entry, 'lastModifiedBy', person(record.lastModifiedBy));
  entry.modifiedOn = record.modifiedOn;
  const list = <K extends keyof EvidenceEntry>(field: K, values: EvidenceEntry[K] & unknown[]) => {
    if (values.length > 0) entry[field] = values;
  };
  list('assignees', keysOf(refs, 'person', record.assignees));
  list('approvers', keysOf(refs, 'person', record.approvers));
  list('entities', sortedStrings(keysOf(refs, 'entity', record.entities)));
  list(
    'requirements',
    record.requirements
      .flatMap((id) => refs.requirementOf(id) ?? [])
      .sort((a, b) => compareStrings(a.framework, b.framework) || compareStrings(a.requirement, b.requirement)),
  );
  list('controls', sortedStrings(keysOf(refs, 'control', record.controls)));
  list('tests', sortedStrings(keysOf(refs, 'test', record.tests)));
  list(
    'tickets',
    record.tickets.map((t) => ({ ticketId: t.ticketKey, source: t.source, url: t.url })),
  );
  list(
    'attachments',
    record.links.map((l) => {
      const link: EvidenceLink = { displayName: l.displayName, url: l.url, evidenceDate: l.evidenceDate };
      if (l.type !== 'link') link.type = l.type;
      setPresent(link, 'note', l.note);
      const period = attachmentPeriod(record.recurrence, l.evidenceDate);
      if (l.periodStart !== period.periodStart) link.periodStart = l.periodStart;
      if (l.periodEnd !== period.periodEnd) link.periodEnd = l.periodEnd;
      setPresent(link, 'addedBy', person(l.addedBy));
      link.addedOn = l.addedOn;
      setPresent(link, 'updatedBy', person(l.updatedBy));
      setPresent(link, 'updatedOn', l.updatedOn);
      return link;
    }),
  );
  return entry;
}

const defaultGapStatus = (gaps: readonly string[]) => (gaps.length > 0 ? 'gaps_detected' : 'no_gaps');

/**
 * The record an entry declares, given what is stored under its ID (if anything): references
 * resolved (problems reported under `at`, the entry's JSON pointer), defaults filled in, and the
 * fields the document leaves to the service taken from the stored record or from this apply.
 */
export function evidenceRecordOf(
  entry: EvidenceEntry,
  id: string,
  current: EvidenceRecord | undefined,
  refs: Refs,
  stamp: ApplyStamp,
  at: string,
  issues: EntryIssue[],
): EvidenceRecord {
  const person = (key: string | undefined, field: string) => resolveKey(refs, 'person', key, `${at}/${field}`, issues, 'person');
  const gaps = entry.gaps ?? [];
  const recurrence = entry.recurrence ?? null;
  const links = stableSort(
    (entry.attachments ?? []).map((l, i): LinkRecord => {
      const here = `${at}/attachments/${i}`;
      const period = attachmentPeriod(recurrence, l.evidenceDate);
      // The stored link this one keeps, for the stamps the document leaves out.
      const same = current?.links.find((c) => c.url === l.url && c.displayName === l.displayName && c.evidenceDate === l.evidenceDate);
      return {
        displayName: l.displayName,
        url: l.url,
        type: l.type ?? 'link',
        note: l.note === undefined || l.note === '' ? null : l.note,
        evidenceDate: l.evidenceDate,
        periodStart: l.periodStart === undefined ? period.periodStart : l.periodStart,
        periodEnd: l.periodEnd === undefined ? period.periodEnd : l.periodEnd,
        addedBy: l.addedBy !== undefined ? resolveKey(refs, 'person', l.addedBy, `${here}/addedBy`, issues, 'person') : same ? same.addedBy : stamp.personId,
        addedOn: l.addedOn ?? same?.addedOn ?? stamp.now,
        updatedBy:
          l.updatedBy !== undefined ? resolveKey(refs, 'person', l.updatedBy, `${here}/updatedBy`, issues, 'person') : (same?.updatedBy ?? null),
        updatedOn: l.updatedOn ?? same?.updatedOn ?? null,
      };
    }),
    newestFirst,
  );
  const record: EvidenceRecord = {
    id,
    name: entry.name,
    status: entry.status ?? current?.status ?? 'not_uploaded',
    department: entry.department ?? null,
    isRelevant: entry.isRelevant ?? true,
    notRelevantReason: entry.notRelevantReason || null,
    nextReviewDate: entry.nextReviewDate ?? null,
    gapStatus: entry.gapStatus ?? defaultGapStatus(gaps),
    gaps,
    recurrence,
    effortEstimate: entry.effortEstimate ?? null,
    source: entry.source ?? null,
    collectionMethod: entry.evidenceCollectionMethod ?? null,
    requirementText: entry.evidenceRequirementText || null,
    revisionRequestedBy: person(entry.revisionRequestedBy, 'revisionRequestedBy'),
    revisionRequestedOn: entry.revisionRequestedOn ?? null,
    rejectionReason: entry.rejectionReason || null,
    addedBy: entry.addedBy !== undefined ? person(entry.addedBy, 'addedBy') : current ? current.addedBy : stamp.personId,
    addedOn: entry.addedOn ?? current?.addedOn ?? stamp.now,
    lastModifiedBy: entry.lastModifiedBy !== undefined ? person(entry.lastModifiedBy, 'lastModifiedBy') : (current?.lastModifiedBy ?? null),
    modifiedOn: entry.modifiedOn !== undefined ? entry.modifiedOn : (current?.modifiedOn ?? null),
    assignees: resolveKeys(refs, 'person', entry.assignees, `${at}/assignees`, issues, 'person'),
    approvers: resolveKeys(refs, 'person', entry.approvers, `${at}/approvers`, issues, 'person'),
    entities: sortedStrings(new Set(resolveKeys(refs, 'entity', entry.entities, `${at}/entities`, issues, 'entity'))),
    requirements: sortedStrings(resolveRequirements(refs, entry.requirements, `${at}/requirements`, issues)),
    controls: sortedStrings(new Set(resolveKeys(refs, 'control', entry.controls, `${at}/controls`, issues, 'control'))),
    tests: sortedStrings(new Set(resolveKeys(refs, 'test', entry.tests, `${at}/tests`, issues, 'test'))),
    tickets: sortTickets((entry.tickets ?? []).map((t) => ({ ticketKey: t.ticketId, source: t.source, url: t.url }))),
    links,
  };
  duplicates(
    entry.tickets?.map((t) => `${t.ticketId} ${t.source}`),
    `${at}/tickets`,
    'lists this ticket twice',
    issues,
  );
  // A record the apply changes is stamped as modified by the apply, unless the document says otherwise.
  if (current && entry.modifiedOn === undefined && sectionsChanged(current, record).length > 0) {
    record.modifiedOn = stamp.now;
    if (entry.lastModifiedBy === undefined) record.lastModifiedBy = stamp.personId;
  }
  return record;
}

function duplicates(values: string[] | undefined, at: string, message: string, issues: EntryIssue[]): void {
  const seen = new Set<string>();
  (values ?? []).forEach((v, i) => {
    if (seen.has(v)) issues.push({ pointer: `${at}/${i}`, message });
    seen.add(v);
  });
}

/** The parts of a record written separately: its row, and each kind of link. */
export const EVIDENCE_SECTIONS = ['row', 'people', 'entities', 'requirements', 'controls', 'tests', 'tickets', 'links'] as const;
export type EvidenceSection = (typeof EVIDENCE_SECTIONS)[number];

const ROW_FIELDS = [
  'name',
  'status',
  'department',
  'isRelevant',
  'notRelevantReason',
  'nextReviewDate',
  'gapStatus',
  'gaps',
  'recurrence',
  'effortEstimate',
  'source',
  'collectionMethod',
  'requirementText',
  'revisionRequestedBy',
  'revisionRequestedOn',
  'rejectionReason',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const satisfies readonly (keyof EvidenceRecord)[];

/** The sections where `after` differs from `before` (stamps aside: a record whose sections all match is unchanged). */
export function sectionsChanged(before: EvidenceRecord, after: EvidenceRecord): EvidenceSection[] {
  const out: EvidenceSection[] = [];
  const rowFields = ROW_FIELDS.filter((f) => f !== 'modifiedOn' && f !== 'lastModifiedBy');
  if (rowFields.some((f) => !isDeepStrictEqual(before[f], after[f]))) out.push('row');
  if (!isDeepStrictEqual(before.assignees, after.assignees) || !isDeepStrictEqual(before.approvers, after.approvers)) out.push('people');
  for (const s of ['entities', 'requirements', 'controls', 'tests', 'tickets', 'links'] as const)
    if (!isDeepStrictEqual(before[s], after[s])) out.push(s);
  return out;
}

/** Every section that differs, the modification stamps included. */
function diffSections(before: EvidenceRecord, after: EvidenceRecord): EvidenceSection[] {
  const out = sectionsChanged(before, after);
  if (!out.includes('row') && (before.modifiedOn !== after.modifiedOn || before.lastModifiedBy !== after.lastModifiedBy)) out.unshift('row');
  return out;
}

export interface EvidenceUpdate {
  before: EvidenceRecord;
  after: EvidenceRecord;
  sections: EvidenceSection[];
}

export interface EvidencePlan {
  creates: EvidenceRecord[];
  updates: EvidenceUpdate[];
  deletes: EvidenceRecord[];
  /** records a prune leaves because they hold files the service hosts */
  kept: EvidenceRecord[];
}

/**
 * What an apply would do: `desired` are the document's records (by ID); with `prune`, stored
 * records the document does not list are deleted, except those holding hosted files.
 */
export function planEvidence(current: CurrentEvidence, desired: readonly EvidenceRecord[], prune: boolean): EvidencePlan {
  const plan: EvidencePlan = { creates: [], updates: [], deletes: [], kept: [] };
  const listed = new Set<string>();
  for (const after of desired) {
    listed.add(after.id);
    const before = current.records.get(after.id);
    if (!before) plan.creates.push(after);
    else {
      const sections = diffSections(before, after);
      if (sections.length > 0) plan.updates.push({ before, after, sections });
    }
  }
  if (prune) {
    for (const record of current.records.values()) {
      if (listed.has(record.id)) continue;
      if ((current.hostedCounts.get(record.id) ?? 0) > 0) plan.kept.push(record);
      else plan.deletes.push(record);
    }
  }
  return plan;
}

const columnsOf = (r: EvidenceRecord): EvidenceColumns => ({
  id: r.id,
  name: r.name,
  status: r.status,
  department: r.department,
  is_relevant: r.isRelevant,
  not_relevant_reason: r.notRelevantReason,
  next_review_date: r.nextReviewDate,
  gap_status: r.gapStatus,
  gaps: JSON.stringify(r.gaps),
  recurrence: r.recurrence,
  effort_estimate: r.effortEstimate,
  source: r.source,
  collection_method: r.collectionMethod,
  requirement_text: r.requirementText,
  revision_requested_by: r.revisionRequestedBy,
  revision_requested_on: r.revisionRequestedOn,
  rejection_reason: r.rejectionReason,
  added_by: r.addedBy,
  added_on: r.addedOn,
  last_modified_by: r.lastModifiedBy,
  modified_on: r.modifiedOn,
});

/**
 * A link's row ID: the record's ID and the link's place in the normal form, so links of one
 * evidence date keep the document's order when read back (the read API orders them by ID).
 */
const linkId = (evidenceId: string, index: number) => `${evidenceId}:link:${String(index).padStart(4, '0')}`;

/** Writes the plan in bulk inside `trx`: new records, the changed sections of changed ones, deletions. */
export async function writeEvidence(db: Db, trx: Kysely<Database>, organizationId: string, plan: EvidencePlan): Promise<void> {
  const org = organizationId;
  const touched = (s: EvidenceSection) => plan.updates.filter((u) => u.sections.includes(s)).map((u) => u.after);
  const ids = (rs: EvidenceRecord[]) => rs.map((r) => r.id);
  const gone = ids(plan.deletes);

  // Deletions: the record's links first (people, entities and tickets have no foreign key), then the record.
  if (gone.length > 0) {
    for (const table of ['subject_people', 'subject_entities', 'tickets', 'risk_links'] as const)
      await deleteSubjectLinks(trx, org, table, 'evidence', gone);
    await deleteMappings(trx, org, 'artifact_requirements', 'evidence', gone);
    await deleteMappings(trx, org, 'control_artifacts', 'evidence', gone);
    await deleteEvidenceTests(trx, org, 'evidence_id', gone);
    await deleteRecords(trx, org, 'evidence', gone);
  }

  await insertEvidenceRows(db, trx, org, plan.creates.map(columnsOf));
  for (const r of touched('row')) await updateEvidenceRow(trx, org, columnsOf(r));

  const people = [...plan.creates, ...touched('people')];
  await deleteSubjectLinks(trx, org, 'subject_people', 'evidence', ids(touched('people')));
  await insertRows(
    db,
    trx,
    'subject_people',
    people.flatMap((r) => [
      ...r.assignees.map((personId, position) => ({
        organization_id: org,
        subject_type: 'evidence' as const,
        subject_id: r.id,
        person_id: personId,
        role: 'assignee' as const,
        is_primary: position === 0,
        position,
      })),
      ...r.approvers.map((personId, position) => ({
        organization_id: org,
        subject_type: 'evidence' as const,
        subject_id: r.id,
        person_id: personId,
        role: 'approver' as const,
        is_primary: false,
        position,
      })),
    ]),
  );

  const entities = [...plan.creates, ...touched('entities')];
  await deleteSubjectLinks(trx, org, 'subject_entities', 'evidence', ids(touched('entities')));
  await insertRows(
    db,
    trx,
    'subject_entities',
    entities.flatMap((r) => r.entities.map((entityId) => ({ organization_id: org, subject_type: 'evidence' as const, subject_id: r.id, entity_id: entityId }))),
  );

  const requirements = [...plan.creates, ...touched('requirements')];
  await deleteMappings(trx, org, 'artifact_requirements', 'evidence', ids(touched('requirements')));
  await insertRows(
    db,
    trx,
    'artifact_requirements',
    requirements.flatMap((r) =>
      r.requirements.map((requirementId) => ({ organization_id: org, artifact_type: 'evidence' as const, artifact_id: r.id, requirement_id: requirementId })),
    ),
  );

  const controls = [...plan.creates, ...touched('controls')];
  await deleteMappings(trx, org, 'control_artifacts', 'evidence', ids(touched('controls')));
  await insertRows(
    db,
    trx,
    'control_artifacts',
    controls.flatMap((r) =>
      r.controls.map((controlId) => ({ organization_id: org, control_id: controlId, artifact_type: 'evidence' as const, artifact_id: r.id })),
    ),
  );

  const tests = [...plan.creates, ...touched('tests')];
  await deleteEvidenceTests(trx, org, 'evidence_id', ids(touched('tests')));
  await insertEvidenceTests(
    db,
    trx,
    org,
    tests.flatMap((r) => r.tests.map((testId) => ({ evidenceId: r.id, testId }))),
  );

  const tickets = [...plan.creates, ...touched('tickets')];
  await deleteSubjectLinks(trx, org, 'tickets', 'evidence', ids(touched('tickets')));
  await insertRows(
    db,
    trx,
    'tickets',
    tickets.flatMap((r) =>
      r.tickets.map((t, i) => ({
        id: `${r.id}:ticket:${String(i).padStart(4, '0')}`,
        organization_id: org,
        subject_type: 'evidence' as const,
        subject_id: r.id,
        ticket_key: t.ticketKey,
        source: t.source,
        url: t.url,
      })),
    ),
  );

  const links = [...plan.creates, ...touched('links')];
  await deleteLinkAttachments(trx, org, ids(touched('links')));
  await insertLinkAttachments(
    db,
    trx,
    org,
    links.flatMap((r) =>
      r.links.map(
        (l, i): LinkAttachmentColumns => ({
          id: linkId(r.id, i),
          evidence_id: r.id,
          display_name: l.displayName,
          type: l.type,
          url: l.url,
          note: l.note,
          blob_key: null,
          size_bytes: null,
          sha256: null,
          upload_id: null,
          evidence_date: l.evidenceDate,
          period_start: l.periodStart,
          period_end: l.periodEnd,
          added_by: l.addedBy,
          added_on: l.addedOn,
          updated_by: l.updatedBy,
          updated_on: l.updatedOn,
        }),
      ),
    ),
  );
}

/** The record's state under the compliance rule (what drives the computed control and framework events). */
export const evidenceStateOf = (r: EvidenceRecord): ArtifactState => evidenceState(r.isRelevant, r.status);

/**
 * The record as GET /v1/evidence/{id} shows it with every expansion (`isCurrentPeriod` aside: it
 * depends on the clock), plus `evidenceCollectionMethod`: the fields an `evidence.updated` names.
 * `hosted` are the files the service hosts for it, already in the read API's shape.
 */
export function evidenceShape(r: EvidenceRecord, lookups: NameLookups, hosted: readonly HostedAttachment[] = []): Record<string, unknown> {
  const shape: Record<string, unknown> = {
    evidenceId: r.id,
    evidenceName: r.name,
    status: r.status,
  };
  setPresent(shape, 'department', r.department);
  Object.assign(shape, {
    assignees: assigneesOf(lookups, r.assignees, (i) => i === 0),
    approvers: approversOf(lookups, r.approvers),
    isRelevant: r.isRelevant,
    nextReviewDate: r.nextReviewDate,
    entities: entitiesOf(lookups, r.entities),
    gapStatus: r.gapStatus,
    gapCount: r.gaps.length,
    ...mappingsOf(lookups, r.requirements, r.controls),
  });
  setPresent(shape, 'notRelevantReason', r.notRelevantReason);
  setPresent(shape, 'effortEstimate', r.effortEstimate);
  setPresent(shape, 'recurrence', r.recurrence);
  setPresent(shape, 'source', r.source);
  setPresent(shape, 'evidenceCollectionMethod', r.collectionMethod);
  setPresent(shape, 'addedBy', personStampOf(lookups, r.addedBy));
  shape.addedOn = r.addedOn;
  setPresent(shape, 'lastModifiedBy', personStampOf(lookups, r.lastModifiedBy));
  shape.modifiedOn = r.modifiedOn;
  setPresent(shape, 'evidenceRequirementText', r.requirementText);
  setPresent(shape, 'revisionRequestedBy', personStampOf(lookups, r.revisionRequestedBy));
  setPresent(shape, 'revisionRequestedOn', r.revisionRequestedOn);
  setPresent(shape, 'rejectionReason', r.rejectionReason);
  shape.mappedTests = r.tests
    .flatMap((id) => {
      const t = lookups.tests.get(id);
      return t ? [{ testId: id, testName: t.name, status: testStatus(t.result, t.integrationFailing) }] : [];
    })
    .sort((a, b) => compareStrings(a.testName, b.testName) || compareStrings(a.testId, b.testId));
  shape.gaps = r.gaps;
  const links = r.links.map((l, i) => {
    const a: HostedAttachment = { displayName: l.displayName, type: l.type, addedOn: l.addedOn, evidenceDate: l.evidenceDate, sortId: linkId(r.id, i) };
    setPresent(a, 'url', l.url);
    setPresent(a, 'note', l.note);
    setPresent(a, 'addedBy', personStampOf(lookups, l.addedBy));
    setPresent(a, 'updatedBy', personStampOf(lookups, l.updatedBy));
    setPresent(a, 'updatedOn', l.updatedOn);
    setPresent(a, 'periodStart', l.periodStart);
    setPresent(a, 'periodEnd', l.periodEnd);
    return a;
  });
  shape.attachments =
    r.status === 'not_uploaded'
      ? []
      : [...hosted, ...links]
          .sort((a, b) => b.evidenceDate - a.evidenceDate || compareStrings(a.sortId, b.sortId))
          .map(({ sortId: _, ...a }) => a);
  shape.tickets = r.tickets.map((t) => ({ ticketId: t.ticketKey, source: t.source, url: t.url }));
  return shape;
}

/** An attachment as the read API shows it, with the row ID that orders attachments of one date. */
export interface HostedAttachment {
  displayName: string;
  type: string;
  addedOn: number;
  evidenceDate: number;
  sortId: string;
  url?: string;
  note?: string;
  addedBy?: { name: string; email: string };
  updatedBy?: { name: string; email: string };
  updatedOn?: number;
  periodStart?: number;
  periodEnd?: number;
}

/** The hosted files of the given records in the read API's shape (for the events of records whose links changed). */
export async function hostedAttachments(
  db: Kysely<Database>,
  organizationId: string,
  evidenceIds: readonly string[],
  lookups: NameLookups,
): Promise<Map<string, HostedAttachment[]>> {
  const out = new Map<string, HostedAttachment[]>();
  for (const id of evidenceIds) {
    const rows = (await listAttachments(db, organizationId, id)).filter((a) => a.url === null);
    if (rows.length === 0) continue;
    out.set(
      id,
      rows.map((a, i) => {
        const h: HostedAttachment = { displayName: a.displayName, type: a.type, addedOn: a.addedOn, evidenceDate: a.evidenceDate, sortId: `~${i}` };
        setPresent(h, 'note', a.note);
        setPresent(h, 'addedBy', personStampOf(lookups, a.addedBy));
        setPresent(h, 'updatedBy', personStampOf(lookups, a.updatedBy));
        setPresent(h, 'updatedOn', a.updatedOn);
        setPresent(h, 'periodStart', a.periodStart);
        setPresent(h, 'periodEnd', a.periodEnd);
        return h;
      }),
    );
  }
  return out;
}

/** An artifact whose state under the compliance rule an apply changes (absent: created or deleted). */
export interface ArtifactStateChange {
  type: 'evidence' | 'test';
  id: string;
  before: ArtifactState | undefined;
  after: ArtifactState | undefined;
  /** the event that names the change, for the computed events' cause */
  cause: { type: string; resourceId: string } | undefined;
}

/**
 * The events of an applied plan, the ones a move records for the same change: a status change is
 * `evidence.status_changed`, any other field of the get shape `evidence.updated` (created and
 * deleted records have no event type of their own and record only their computed effects), plus
 * the records whose state under the compliance rule changed, for the pipeline's computed events.
 */
export async function evidenceEvents(
  db: Kysely<Database>,
  organizationId: string,
  plan: EvidencePlan,
  lookups: NameLookups,
  now: number,
): Promise<{ events: NewEvent[]; states: ArtifactStateChange[] }> {
  const events: NewEvent[] = [];
  const states: ArtifactStateChange[] = [];
  const hosted = await hostedAttachments(
    db,
    organizationId,
    plan.updates.filter((u) => u.sections.includes('links') || u.before.status !== u.after.status).map((u) => u.after.id),
    lookups,
  );
  for (const u of plan.updates) {
    const id = u.after.id;
    const files = hosted.get(id) ?? [];
    const { status: b, ...before } = evidenceShape(u.before, lookups, files);
    const { status: a, ...after } = evidenceShape(u.after, lookups, files);
    let cause: { type: string; resourceId: string } | undefined;
    if (b !== a) {
      events.push({
        type: 'evidence.status_changed',
        resourceId: id,
        occurredAt: now,
        data: { before: b as EvidenceStatus, after: a as EvidenceStatus },
      });
      cause = { type: 'evidence.status_changed', resourceId: id };
    }
    const changes = changedFields(before, after);
    if (Object.keys(changes).length > 0) {
      events.push({ type: 'evidence.updated', resourceId: id, occurredAt: now, data: { changes } });
      cause ??= { type: 'evidence.updated', resourceId: id };
    }
    states.push({ type: 'evidence', id, before: evidenceStateOf(u.before), after: evidenceStateOf(u.after), cause });
  }
  for (const r of plan.creates) states.push({ type: 'evidence', id: r.id, before: undefined, after: evidenceStateOf(r), cause: undefined });
  for (const r of plan.deletes) states.push({ type: 'evidence', id: r.id, before: evidenceStateOf(r), after: undefined, cause: undefined });
  return { events, states };
}

/** The pointer of entry `index` of the document's evidence list. */
export const evidencePointer = (index: number) => `/evidence/${pointerSegment(index)}`;
