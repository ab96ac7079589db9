import type { CurrentRecord, NormalizeContext, ProgramKind, WriteContext } from '../kinds/kind.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../kinds/normalize.ts';
import { ProgramEvidence, type ProgramEvidenceLink } from './program-schema.ts';
import { attachmentPeriod, type EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import { writeTestsAndLinks } from './program-children.ts';
import { evidenceShape, hostedFiles } from './program-shape.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  requirementsByArtifact,
  ticketsBySubject,
} from '../../storage/db/repositories/program/program-links.ts';
import {
  deleteEvidenceTests,
  deleteLinkAttachments,
  readStoredEvidence,
} from '../../storage/db/repositories/artifacts/evidence-program.ts';
import { compareStrings } from '../artifacts/program-shapes.ts';
import { shapedUpdateEvents } from '../events/update-events.ts';
import {
  entryFields,
  assigneeEntry,
  assigneesOfLinks,
  fieldOrder,
  nullable,
  nullableColumns,
  nullDefaults,
  num,
  personIdOf,
  stampColumns,
  stampsOfRow,
} from '../kinds/entry-values.ts';
import { referenceList, repeated, repeatedAssignees, repeatedTickets } from '../kinds/entry-checks.ts';
import { REVIEW_DEFAULTS, reviewColumns } from '../kinds/review-fields.ts';
import { requirementKeys, testKeyOf } from '../kinds/reference-keys.ts';

type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];
type Link = ProgramEvidenceLink;

/** The entry's fields, in the schema's order. */
const FIELDS = entryFields<ProgramEvidence>(ProgramEvidence);

/** The fields stored on the evidence row itself. */
const ROW_FIELDS = FIELDS.filter(
  (f) => !['assignees', 'approvers', 'entities', 'controls', 'requirements', 'tests', 'tickets', 'attachments'].includes(f),
);

/** The fields that hold null when the record has no value (their columns are named after them). */
const NULLABLE = ['recurrence', 'effortEstimate', 'source', 'requirementText', 'revisionRequestedOn', 'rejectionReason'] as const;

/** A current record, with how many files the service hosts for it (a prune keeps those records). */
type EvidenceRecord = CurrentRecord<ProgramEvidence> & { hostedFiles: number };

/** A link's row ID: the record and the link's place, so links of one date read back in the document's order. */
const ticketRowId = (evidenceId: string, index: number) => `${evidenceId}:ticket:${String(index).padStart(4, '0')}`;

const newestFirst = (links: readonly Link[]): Link[] =>
  links
    .map((link, i) => ({ link, i }))
    .sort((a, b) => b.link.evidenceDate - a.link.evidenceDate || a.i - b.i)
    .map((x) => x.link);

/** Fields in one order: an entry read back and one normalized compare (and print) alike. */
const reorder = fieldOrder<ProgramEvidence>(FIELDS);

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
  return {
    name: e.name,
    ...reviewColumns(e),
    gaps: JSON.stringify(e.gaps ?? []),
    ...nullableColumns(e, NULLABLE),
    collection_method: e.evidenceCollectionMethod ?? null,
    revision_requested_by: personIdOf(w, e.revisionRequestedBy),
    ...stampColumns(e, w),
  };
}

/** What a new evidence record takes for the fields its entry leaves out. */
const defaults = (ctx: NormalizeContext): Partial<ProgramEvidence> => ({
  ...REVIEW_DEFAULTS,
  gaps: [],
  ...nullDefaults(NULLABLE),
  evidenceCollectionMethod: null,
  revisionRequestedBy: null,
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
});

export const evidenceKind: ProgramKind<ProgramEvidence, RecordedKindEvents> = {
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
        ...stampsOfRow(r, person),
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
      out.push({ id: r.id, entry: reorder(entry), hostedFiles: stored.hostedCounts.get(r.id) ?? 0 });
    }
    return out;
  },

  normalize(entry, current, ctx) {
    const merged = mergeEntry(entry, current, defaults(ctx), FIELDS);
    for (const f of ['entities', 'controls', 'requirements', 'tests'] as const) merged[f] = sorted(merged[f]);
    if (entry.attachments !== undefined)
      merged.attachments = normalizeLinks(entry.attachments, merged.recurrence, current?.attachments ?? [], ctx);
    if (entry.assignees !== undefined) merged.assignees = entry.assignees.map(assigneeEntry);
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),

  check(entry, pointer, issues) {
    repeatedAssignees(entry.assignees, pointer, issues);
    repeated(
      entry.attachments?.map((l) => `${l.url}\u0000${l.displayName}\u0000${l.evidenceDate}`),
      `${pointer}/attachments`,
      'repeats a link (same url, displayName and evidenceDate)',
      issues,
    );
    repeatedTickets(entry.tickets, pointer, issues);
    entry.attachments?.forEach((l, i) => {
      if (l.periodStart != null && l.periodEnd != null && l.periodStart > l.periodEnd)
        issues.push({ field: `${pointer}/attachments/${i}/periodEnd`, message: 'must not be before periodStart' });
    });
  },

  references(entry, pointer) {
    const { refs, one, many, links } = referenceList(pointer);
    links(entry);
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

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'evidence',
      columns: rowColumns,
      rowFields: ROW_FIELDS,
      subject: 'evidence',
      links: ['assignees', 'approvers', 'entities', 'tickets', 'requirements', 'controls'],
      mappings: 'evidence',
      ticketRowId,
      children: writeTestsAndLinks,
      async childrenOfDeleted({ trx, organizationId: org }, ids) {
        await deleteEvidenceTests(trx, org, 'evidence_id', ids);
        await deleteLinkAttachments(trx, org, ids);
      },
    }),

  events: (w, changes) =>
    shapedUpdateEvents(w, 'evidence', changes, async (c, lookups) => {
      const files = await hostedFiles(w, c.id, lookups, c);
      return [evidenceShape(c.id, c.before!, w, lookups, files), evidenceShape(c.id, c.after!, w, lookups, files)];
    }),
};
