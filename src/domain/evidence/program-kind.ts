// Evidence records in a program document (issue 25; the entry is ./program-schema.ts). Read whole
// per organization in a fixed number of statements; an apply writes the records that changed, and
// of those only the parts that changed (the row, each kind of link, the external links).
//
// Attachments: a document carries external links only. Files the service hosts (uploads, and the
// demo's file records) are never read into an entry, never changed and never removed: the links
// an apply replaces are the rows with a URL and no blob, and a prune keeps a record that holds a
// hosted file (protectFromPrune).
//
// Events are the ones a move records for the same change: `evidence.status_changed` for the
// status, `evidence.updated` with the changed fields of GET /v1/evidence/{id} (every expansion,
// `isCurrentPeriod` aside) for anything else. Created and deleted records have no event type of
// their own; their effects on controls and frameworks are computed by the pipeline.
import { changedList } from '../program/list-changes.ts';
import { refreshStaleAt } from '../../storage/db/repositories/service/time-due.ts';
import type { CurrentRecord, NormalizeContext, ProgramKind, RecordChange, Reference, WriteContext } from '../program/kind.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../program/normalize.ts';
import { ProgramEvidence, type ProgramEvidenceLink } from './program-schema.ts';
import { attachmentPeriod, type EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import { deleteWhereIn, insertRows, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  replaceArtifactMappings,
  replaceSubjectLinks,
  requirementsByArtifact,
  ticketsBySubject,
  type PersonLink,
} from '../../storage/db/repositories/program/program-links.ts';
import {
  deleteEvidenceTests,
  deleteLinkAttachments,
  insertEvidenceTests,
  insertLinkAttachments,
  readStoredEvidence,
  type LinkAttachmentColumns,
} from '../../storage/db/repositories/artifacts/evidence-program.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { listAttachments } from '../../storage/db/repositories/artifacts/evidence.ts';
import { approversOf, assigneesOf, compareStrings, entitiesOf, mappingsOf, personStampOf } from '../artifacts/program-shapes.ts';
import { testStatus } from '../compliance/rules.ts';
import { changedFields } from '../events/changes.ts';
import type { NewEvent } from '../events/record.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { setPresent } from '../set-present.ts';
import { isDeepStrictEqual } from 'node:util';
import { requirementKeys, testKeyOf } from '../program/reference-keys.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];
type Link = ProgramEvidenceLink;

const FIELDS = [
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
  'evidenceCollectionMethod',
  'requirementText',
  'revisionRequestedBy',
  'revisionRequestedOn',
  'rejectionReason',
  'assignees',
  'approvers',
  'entities',
  'controls',
  'requirements',
  'tests',
  'tickets',
  'attachments',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const satisfies readonly (keyof ProgramEvidence)[];

/** The fields stored on the evidence row itself. */
const ROW_FIELDS = FIELDS.filter(
  (f) => !['assignees', 'approvers', 'entities', 'controls', 'requirements', 'tests', 'tickets', 'attachments'].includes(f),
);

/** A current record, with how many files the service hosts for it (a prune keeps those records). */
type EvidenceRecord = CurrentRecord<ProgramEvidence> & { hostedFiles: number };

/** Sets a field to its value, or to null when it has none: an export writes every field. */
const nullable = <T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined) => {
  target[key] = (value ?? null) as T[K];
};

/** Who and when: they change with every change, so on their own they are no update. */
const STAMPS: ReadonlySet<string> = new Set(['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn']);

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** A link's row ID: the record and the link's place, so links of one date read back in the document's order. */
const linkRowId = (evidenceId: string, index: number) => `${evidenceId}:link:${String(index).padStart(4, '0')}`;
const ticketRowId = (evidenceId: string, index: number) => `${evidenceId}:ticket:${String(index).padStart(4, '0')}`;

const newestFirst = (links: readonly Link[]): Link[] =>
  links
    .map((link, i) => ({ link, i }))
    .sort((a, b) => b.link.evidenceDate - a.link.evidenceDate || a.i - b.i)
    .map((x) => x.link);

function assigneesOfLinks(links: readonly PersonLink[], keyOf: (id: string) => string) {
  return links
    .filter((p) => p.role === 'assignee')
    .map((p) => (p.isPrimary ? { person: keyOf(p.personId), isPrimary: true } : { person: keyOf(p.personId) }));
}

/** Fields in one order: an entry read back and one normalized compare (and print) alike. */
function reorder(e: ProgramEvidence): ProgramEvidence {
  const out: Record<string, unknown> = { key: e.key };
  for (const f of FIELDS) {
    const v = e[f];
    if (v === undefined) continue;
    out[f] = v;
  }
  return out as ProgramEvidence;
}

/** The same link (for the stamps an entry leaves out): same URL, name and date. */
const sameLink = (a: Link, b: Link) => a.url === b.url && a.displayName === b.displayName && a.evidenceDate === b.evidenceDate;

function normalizeLinks(
  given: readonly Link[],
  recurrence: string | null | undefined,
  current: readonly Link[],
  ctx: NormalizeContext,
): Link[] {
  return newestFirst(
    given.map((l) => {
      const derived = attachmentPeriod(recurrence ?? null, l.evidenceDate);
      const was = current.find((c) => sameLink(c, l));
      const out: Link = { displayName: l.displayName, url: l.url, type: l.type ?? 'link', evidenceDate: l.evidenceDate };
      out.note = l.note === undefined || l.note === '' ? null : l.note;
      out.periodStart = l.periodStart === undefined ? derived.periodStart : l.periodStart;
      out.periodEnd = l.periodEnd === undefined ? derived.periodEnd : l.periodEnd;
      const addedBy = l.addedBy !== undefined ? l.addedBy : was ? was.addedBy : ctx.actorKey;
      if (addedBy !== undefined) out.addedBy = addedBy;
      out.addedOn = l.addedOn ?? was?.addedOn ?? ctx.now;
      out.updatedBy = l.updatedBy !== undefined ? l.updatedBy : (was?.updatedBy ?? null);
      out.updatedOn = l.updatedOn !== undefined ? l.updatedOn : (was?.updatedOn ?? null);
      return out;
    }),
  );
}

function rowColumns(e: ProgramEvidence, w: WriteContext) {
  const person = (key: string | null | undefined) => (key == null ? null : w.keys.idOf('person', key));
  return {
    name: e.name,
    status: e.status ?? 'not_uploaded',
    department: e.department ?? null,
    is_relevant: e.isRelevant ?? true,
    not_relevant_reason: e.notRelevantReason ?? null,
    next_review_date: e.nextReviewDate ?? null,
    gap_status: e.gapStatus ?? 'no_gaps',
    gaps: JSON.stringify(e.gaps ?? []),
    recurrence: e.recurrence ?? null,
    effort_estimate: e.effortEstimate ?? null,
    source: e.source ?? null,
    collection_method: e.evidenceCollectionMethod ?? null,
    requirement_text: e.requirementText ?? null,
    revision_requested_by: person(e.revisionRequestedBy),
    revision_requested_on: e.revisionRequestedOn ?? null,
    rejection_reason: e.rejectionReason ?? null,
    added_by: person(e.addedBy),
    added_on: e.addedOn ?? w.now,
    last_modified_by: person(e.lastModifiedBy),
    modified_on: e.modifiedOn ?? null,
  };
}

export const evidenceKind: ProgramKind<ProgramEvidence> = {
  name: 'evidence',
  record: 'evidence',
  resources: ['evidence'],
  links: { controls: 'control', requirements: 'framework', tests: 'test' },
  dataKinds: ['evidence', 'controls'],
  schema: ProgramEvidence,

  async read({ q, organizationId: org, keys }) {
    const [stored, people, entities, tickets, requirements, controls, requirementKey] = await Promise.all([
      readStoredEvidence(q, org),
      peopleBySubject(q, org, 'evidence'),
      entitiesBySubject(q, org, 'evidence'),
      ticketsBySubject(q, org, 'evidence'),
      requirementsByArtifact(q, org, 'evidence'),
      controlsByArtifact(q, org, 'evidence'),
      requirementKeys(q, org, keys),
    ]);
    const tests = new Map<string, string[]>();
    for (const t of stored.tests) tests.set(t.evidenceId, [...(tests.get(t.evidenceId) ?? []), t.testId]);
    const links = new Map<string, typeof stored.links>();
    for (const a of stored.links) links.set(a.evidence_id, [...(links.get(a.evidence_id) ?? []), a]);
    const person = (id: string) => keys.keyOf('person', id);

    const out: EvidenceRecord[] = [];
    for (const r of [...stored.rows].sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.id, b.id))) {
      const recurrence = r.recurrence ?? undefined;
      const mine = people.get(r.id) ?? [];
      const entry: ProgramEvidence = {
        key: keys.keyOf('evidence', r.id),
        name: r.name,
        status: r.status as EvidenceStatus,
        isRelevant: Boolean(r.is_relevant),
        nextReviewDate: num(r.next_review_date),
        gapStatus: r.gap_status as ProgramEvidence['gapStatus'],
        gaps: JSON.parse(r.gaps) as string[],
        assignees: assigneesOfLinks(mine, person),
        approvers: mine.filter((p) => p.role === 'approver').map((p) => person(p.personId)),
        entities: sorted((entities.get(r.id) ?? []).map((id) => keys.keyOf('entity', id))),
        controls: sorted((controls.get(r.id) ?? []).map((id) => keys.keyOf('control', id))),
        requirements: sorted((requirements.get(r.id) ?? []).map(requirementKey)),
        tests: sorted((tests.get(r.id) ?? []).map((id) => testKeyOf(keys, id))),
        tickets: tickets.get(r.id) ?? [],
        attachments: (links.get(r.id) ?? []).map((a) => {
          const link: Link = { displayName: a.display_name, url: a.url!, type: a.type, evidenceDate: Number(a.evidence_date) };
          link.note = a.note === '' ? null : a.note;
          link.periodStart = num(a.period_start);
          link.periodEnd = num(a.period_end);
          link.addedBy = a.added_by === null ? null : person(a.added_by);
          link.addedOn = Number(a.added_on);
          link.updatedBy = a.updated_by === null ? null : person(a.updated_by);
          link.updatedOn = num(a.updated_on);
          return link;
        }),
        addedOn: Number(r.added_on),
        modifiedOn: num(r.modified_on),
      };
      nullable(entry, 'department', r.department);
      nullable(entry, 'notRelevantReason', r.not_relevant_reason);
      nullable(entry, 'recurrence', recurrence as ProgramEvidence['recurrence']);
      nullable(entry, 'effortEstimate', r.effort_estimate as ProgramEvidence['effortEstimate']);
      nullable(entry, 'source', r.source as ProgramEvidence['source']);
      nullable(entry, 'evidenceCollectionMethod', r.collection_method as ProgramEvidence['evidenceCollectionMethod']);
      nullable(entry, 'requirementText', r.requirement_text);
      entry.revisionRequestedBy = r.revision_requested_by === null ? null : person(r.revision_requested_by);
      nullable(entry, 'revisionRequestedOn', num(r.revision_requested_on));
      nullable(entry, 'rejectionReason', r.rejection_reason);
      // null, not left out: applied elsewhere, a record without them is not stamped with the actor
      entry.addedBy = r.added_by === null ? null : person(r.added_by);
      entry.lastModifiedBy = r.last_modified_by === null ? null : person(r.last_modified_by);
      out.push({ id: r.id, entry: reorder(entry), hostedFiles: stored.hostedCounts.get(r.id) ?? 0 });
    }
    return out;
  },

  normalize(entry, current, ctx) {
    const merged = mergeEntry(
      entry,
      current,
      {
        status: 'not_uploaded',
        department: null,
        isRelevant: true,
        notRelevantReason: null,
        nextReviewDate: null,
        gapStatus: 'no_gaps',
        gaps: [],
        recurrence: null,
        effortEstimate: null,
        source: null,
        evidenceCollectionMethod: null,
        requirementText: null,
        revisionRequestedBy: null,
        revisionRequestedOn: null,
        rejectionReason: null,
        assignees: [],
        approvers: [],
        entities: [],
        controls: [],
        requirements: [],
        tests: [],
        tickets: [],
        attachments: [],
        lastModifiedBy: null,
        ...createdStamps(ctx),
      },
      FIELDS,
    );
    for (const f of ['entities', 'controls', 'requirements', 'tests'] as const) merged[f] = sorted(merged[f]);
    if (entry.attachments !== undefined)
      merged.attachments = normalizeLinks(entry.attachments, merged.recurrence, current?.attachments ?? [], ctx);
    if (entry.assignees !== undefined)
      merged.assignees = entry.assignees.map((a) => (a.isPrimary ? { person: a.person, isPrimary: true } : { person: a.person }));
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),

  check(entry, pointer, issues) {
    repeated(
      entry.assignees?.map((a) => a.person),
      `${pointer}/assignees`,
      'lists this person twice',
      issues,
      '/person',
    );
    repeated(
      entry.attachments?.map((l) => `${l.url}\u0000${l.displayName}\u0000${l.evidenceDate}`),
      `${pointer}/attachments`,
      'repeats a link (same url, displayName and evidenceDate)',
      issues,
    );
    repeated(
      entry.tickets?.map((t) => `${t.source}\u0000${t.ticketId}`),
      `${pointer}/tickets`,
      'lists this ticket twice',
      issues,
    );
    entry.attachments?.forEach((l, i) => {
      if (l.periodStart != null && l.periodEnd != null && l.periodStart > l.periodEnd)
        issues.push({ field: `${pointer}/attachments/${i}/periodEnd`, message: 'must not be before periodStart' });
    });
  },

  references(entry, pointer) {
    const refs: Reference[] = [];
    const one = (record: string, key: string | null | undefined, at: string) => {
      if (key != null) refs.push({ record, key, pointer: `${pointer}/${at}` });
    };
    const many = (record: string, list: readonly string[] | undefined, at: string) =>
      list?.forEach((key, i) => {
        refs.push({ record, key, pointer: `${pointer}/${at}/${i}` });
      });
    entry.assignees?.forEach((a, i) => {
      one('person', a.person, `assignees/${i}/person`);
    });
    many('person', entry.approvers, 'approvers');
    many('entity', entry.entities, 'entities');
    many('control', entry.controls, 'controls');
    many('requirement', entry.requirements, 'requirements');
    many('test', entry.tests, 'tests');
    one('person', entry.revisionRequestedBy, 'revisionRequestedBy');
    one('person', entry.addedBy, 'addedBy');
    one('person', entry.lastModifiedBy, 'lastModifiedBy');
    entry.attachments?.forEach((l, i) => {
      one('person', l.addedBy, `attachments/${i}/addedBy`);
      one('person', l.updatedBy, `attachments/${i}/updatedBy`);
    });
    return refs;
  },

  protectFromPrune: (record) => (record as EvidenceRecord).hostedFiles > 0,
  touchesCompliance: changesAny<ProgramEvidence>(['status', 'isRelevant', 'controls', 'requirements']),

  async write(w, changes) {
    const { db, trx, organizationId: org, keys } = w;
    const created = changes.filter((c) => c.action === 'create');
    const updated = changes.filter((c) => c.action === 'update');
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);

    if (deleted.length > 0) {
      for (const table of ['subject_people', 'subject_entities', 'tickets', 'risk_links'] as const)
        await deleteWhereIn(trx, table, org, 'subject_id', deleted, 'evidence');
      await deleteWhereIn(trx, 'artifact_requirements', org, 'artifact_id', deleted);
      await deleteEvidenceTests(trx, org, 'evidence_id', deleted);
      await deleteLinkAttachments(trx, org, deleted);
      await deleteWhereIn(trx, 'control_artifacts', org, 'artifact_id', deleted);
      await deleteWhereIn(trx, 'evidence', org, 'id', deleted);
    }

    await insertRows(
      db,
      trx,
      'evidence',
      created.map((c) => ({ id: c.id, organization_id: org, ...rowColumns(c.after!, w) })),
    );
    for (const c of updated)
      if (ROW_FIELDS.some((f) => !isDeepStrictEqual(c.before![f], c.after![f])))
        await updateRow(trx, 'evidence', org, c.id, rowColumns(c.after!, w));

    const upserts = [...created, ...updated];
    const people = new Map<string, PersonLink[]>();
    const entities = new Map<string, string[]>();
    const tickets = new Map<string, { ticketId: string; source: string; url: string }[]>();
    const requirements = new Map<string, string[]>();
    const controls = new Map<string, string[]>();
    const tests: { evidenceId: string; testId: string }[] = [];
    const testsReplaced: string[] = [];
    const linksReplaced: string[] = [];
    const links: LinkAttachmentColumns[] = [];
    for (const c of upserts) {
      const e = c.after!;
      if (changedList(c, 'assignees', 'approvers'))
        people.set(c.id, [
          ...(e.assignees ?? []).map((a) => ({
            personId: keys.idOf('person', a.person),
            role: 'assignee' as const,
            isPrimary: a.isPrimary ?? false,
          })),
          ...(e.approvers ?? []).map((k) => ({ personId: keys.idOf('person', k), role: 'approver' as const, isPrimary: false })),
        ]);
      if (changedList(c, 'entities'))
        entities.set(
          c.id,
          (e.entities ?? []).map((k) => keys.idOf('entity', k)),
        );
      if (changedList(c, 'tickets')) tickets.set(c.id, e.tickets ?? []);
      if (changedList(c, 'requirements'))
        requirements.set(
          c.id,
          (e.requirements ?? []).map((k) => keys.idOf('requirement', k)),
        );
      if (changedList(c, 'controls'))
        controls.set(
          c.id,
          (e.controls ?? []).map((k) => keys.idOf('control', k)),
        );
      if (changedList(c, 'tests')) {
        if (c.action === 'update') testsReplaced.push(c.id);
        for (const k of e.tests ?? []) tests.push({ evidenceId: c.id, testId: keys.idOf('test', k) });
      }
      if (changedList(c, 'attachments')) {
        if (c.action === 'update') linksReplaced.push(c.id);
        (e.attachments ?? []).forEach((l, i) => {
          links.push({
            id: linkRowId(c.id, i),
            evidence_id: c.id,
            display_name: l.displayName,
            type: l.type ?? 'link',
            url: l.url,
            note: l.note ?? null,
            blob_key: null,
            size_bytes: null,
            sha256: null,
            upload_id: null,
            evidence_date: l.evidenceDate,
            period_start: l.periodStart ?? null,
            period_end: l.periodEnd ?? null,
            added_by: l.addedBy == null ? null : keys.idOf('person', l.addedBy),
            added_on: l.addedOn ?? w.now,
            updated_by: l.updatedBy == null ? null : keys.idOf('person', l.updatedBy),
            updated_on: l.updatedOn ?? null,
          });
        });
      }
    }
    const fresh = new Set(created.map((c) => c.id));
    await replaceSubjectLinks(db, trx, org, 'evidence', { people, entities, tickets }, ticketRowId, fresh);
    await replaceArtifactMappings(db, trx, org, 'evidence', { requirements, controls }, fresh);
    await deleteEvidenceTests(trx, org, 'evidence_id', testsReplaced);
    await insertEvidenceTests(db, trx, org, tests);
    await deleteLinkAttachments(trx, org, linksReplaced);
    await insertLinkAttachments(db, trx, org, links);
    // When time makes each record stale follows its attachments and recurrence (src/domain/time/due.ts):
    // kept for every record whose links or recurrence this apply wrote.
    const timed = upserts.filter(
      (c) => c.action === 'create' || changedList(c, 'attachments') || c.before!.recurrence !== c.after!.recurrence,
    );
    if (timed.length > 0)
      await refreshStaleAt(
        trx,
        org,
        timed.map((c) => c.id),
      );
  },

  async events(w, changes) {
    const updates = changes.filter((c) => c.action === 'update');
    if (updates.length === 0) return { events: [] };
    const lookups = await w.names();
    const events: NewEvent[] = [];
    for (const c of updates) {
      const files = await hostedFiles(w, c.id, lookups, c);
      const { status: b, ...before } = evidenceShape(c.id, c.before!, w, lookups, files);
      const { status: a, ...after } = evidenceShape(c.id, c.after!, w, lookups, files);
      if (b !== a)
        events.push({
          type: 'evidence.status_changed',
          resourceId: c.id,
          occurredAt: w.now,
          data: { before: b as EvidenceStatus, after: a as EvidenceStatus },
        });
      const fieldChanges = changedFields(before, after);
      // as the moves do: an update event only when a field besides the stamps changed
      if (Object.keys(fieldChanges).some((f) => !STAMPS.has(f)))
        events.push({ type: 'evidence.updated', resourceId: c.id, occurredAt: w.now, data: { changes: fieldChanges } });
    }
    return { events };
  },
};

function repeated(values: readonly string[] | undefined, at: string, message: string, issues: FieldIssue[], suffix = ''): void {
  const seen = new Set<string>();
  values?.forEach((v, i) => {
    if (seen.has(v)) issues.push({ field: `${at}/${i}${suffix}`, message });
    seen.add(v);
  });
}

interface AttachmentShape {
  displayName: string;
  type: string;
  url?: string;
  note?: string;
  addedBy?: { name: string; email: string };
  addedOn: number;
  updatedBy?: { name: string; email: string };
  updatedOn?: number;
  evidenceDate: number;
  periodStart?: number;
  periodEnd?: number;
  /** orders attachments of one date as the read API does (by row ID) */
  sortId: string;
}

/** The files the service hosts for a record, in the read API's shape (read only when its attachments show: status or links changed). */
async function hostedFiles(
  w: WriteContext,
  id: string,
  lookups: NameLookups,
  c: RecordChange<ProgramEvidence>,
): Promise<AttachmentShape[]> {
  if (c.before!.status === c.after!.status && isDeepStrictEqual(c.before!.attachments, c.after!.attachments)) return [];
  const rows = await listAttachments(w.trx, w.organizationId, id);
  return rows
    .filter((a) => a.url === null)
    .map((a, i) => {
      const s: AttachmentShape = {
        displayName: a.displayName,
        type: a.type,
        addedOn: a.addedOn,
        evidenceDate: a.evidenceDate,
        sortId: `~${i}`,
      };
      setPresent(s, 'note', a.note);
      setPresent(s, 'addedBy', personStampOf(lookups, a.addedBy));
      setPresent(s, 'updatedBy', personStampOf(lookups, a.updatedBy));
      setPresent(s, 'updatedOn', a.updatedOn);
      setPresent(s, 'periodStart', a.periodStart);
      setPresent(s, 'periodEnd', a.periodEnd);
      return s;
    });
}

/**
 * The record as GET /v1/evidence/{id} shows it with every expansion (`isCurrentPeriod` aside: it
 * depends on the clock), plus `evidenceCollectionMethod` (a list field): the fields an
 * `evidence.updated` names. Built from the entry and the names read once, not from each record.
 */
export function evidenceShape(
  id: string,
  e: ProgramEvidence,
  w: WriteContext,
  lookups: NameLookups,
  hosted: readonly AttachmentShape[],
): Record<string, unknown> {
  const idOf = (record: string, key: string) => w.keys.idOf(record, key);
  const personId = (key: string | null | undefined) => (key == null ? null : idOf('person', key));
  const assignees = e.assignees ?? [];
  const status = e.status ?? 'not_uploaded';
  const shape: Record<string, unknown> = { evidenceId: id, evidenceName: e.name, status };
  setPresent(shape, 'department', e.department);
  Object.assign(shape, {
    assignees: assigneesOf(
      lookups,
      assignees.map((a) => idOf('person', a.person)),
      (i) => assignees[i].isPrimary ?? false,
    ),
    approvers: approversOf(
      lookups,
      (e.approvers ?? []).map((k) => idOf('person', k)),
    ),
    isRelevant: e.isRelevant ?? true,
    nextReviewDate: e.nextReviewDate ?? null,
    entities: entitiesOf(
      lookups,
      (e.entities ?? []).map((k) => idOf('entity', k)),
    ),
    gapStatus: e.gapStatus ?? 'no_gaps',
    gapCount: (e.gaps ?? []).length,
    ...mappingsOf(
      lookups,
      (e.requirements ?? []).map((k) => idOf('requirement', k)),
      (e.controls ?? []).map((k) => idOf('control', k)),
    ),
  });
  setPresent(shape, 'notRelevantReason', e.notRelevantReason);
  setPresent(shape, 'effortEstimate', e.effortEstimate);
  setPresent(shape, 'recurrence', e.recurrence);
  setPresent(shape, 'source', e.source);
  setPresent(shape, 'evidenceCollectionMethod', e.evidenceCollectionMethod);
  setPresent(shape, 'addedBy', personStampOf(lookups, personId(e.addedBy)));
  shape.addedOn = e.addedOn;
  setPresent(shape, 'lastModifiedBy', personStampOf(lookups, personId(e.lastModifiedBy)));
  shape.modifiedOn = e.modifiedOn ?? null;
  setPresent(shape, 'evidenceRequirementText', e.requirementText);
  setPresent(shape, 'revisionRequestedBy', personStampOf(lookups, personId(e.revisionRequestedBy)));
  setPresent(shape, 'revisionRequestedOn', e.revisionRequestedOn);
  setPresent(shape, 'rejectionReason', e.rejectionReason);
  shape.mappedTests = (e.tests ?? [])
    .flatMap((k) => {
      const testId = idOf('test', k);
      const t = lookups.tests.get(testId);
      return t ? [{ testId, testName: t.name, status: testStatus(t.result, t.integrationFailing) }] : [];
    })
    .sort((a, b) => compareStrings(a.testName, b.testName) || compareStrings(a.testId, b.testId));
  shape.gaps = e.gaps ?? [];
  const links: AttachmentShape[] = (e.attachments ?? []).map((l, i) => {
    const s: AttachmentShape = {
      displayName: l.displayName,
      type: l.type ?? 'link',
      addedOn: l.addedOn ?? w.now,
      evidenceDate: l.evidenceDate,
      sortId: linkRowId(id, i),
    };
    s.url = l.url;
    setPresent(s, 'note', l.note);
    setPresent(s, 'addedBy', personStampOf(lookups, personId(l.addedBy)));
    setPresent(s, 'updatedBy', personStampOf(lookups, personId(l.updatedBy)));
    setPresent(s, 'updatedOn', l.updatedOn);
    setPresent(s, 'periodStart', l.periodStart);
    setPresent(s, 'periodEnd', l.periodEnd);
    return s;
  });
  shape.attachments =
    status === 'not_uploaded'
      ? []
      : [...hosted, ...links]
          .sort((a, b) => b.evidenceDate - a.evidenceDate || compareStrings(a.sortId, b.sortId))
          .map(({ sortId: _, ...a }) => a);
  shape.tickets = (e.tickets ?? []).map((t) => ({ ticketId: t.ticketId, source: t.source, url: t.url }));
  return shape;
}
