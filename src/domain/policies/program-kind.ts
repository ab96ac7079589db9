// Policies in a program document (issue 25): every field GET shows, documents (links, or the
// metadata of files held elsewhere), version history, tickets, assignees, approvers, entities,
// and the mappings to controls, requirements and risks. A status that moves records
// `policy.status_changed`; other fields `policy.updated` (GET-named), as the lifecycle moves do.
import type { CurrentRecord, NormalizeContext, ProgramKind, RecordChange, WriteContext } from '../kinds/kind.ts';
import { changedList, group } from '../kinds/list-changes.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
import { ProgramPolicy, type ProgramFileEntry } from './program-schema.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../kinds/normalize.ts';
import { deleteWhereIn, insertRows, selectAll } from '../../storage/db/repositories/program/program-writes.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  requirementsByArtifact,
  risksBySubject,
  ticketsBySubject,
} from '../../storage/db/repositories/program/program-links.ts';
import { fieldViews, updateEvents } from '../events/update-events.ts';
import { entryFields, fieldOrder, nullableColumns, nullDefaults, personIdOf, stampColumns, stampsOfRow } from '../kinds/entry-values.ts';
import { referenceList, repeatedAssignees } from '../kinds/entry-checks.ts';
import { REVIEW_DEFAULTS, reviewColumns } from '../kinds/review-fields.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';

/** The entry's fields, in the schema's order. */
const FIELDS = entryFields<ProgramPolicy>(ProgramPolicy);

/** How each field shows in GET /v1/policies/{policyId} (policy.updated names them so). */
const VIEWS = fieldViews(FIELDS, {
  customId: 'policyCustomId',
  name: 'policyName',
  requirementText: 'policyRequirementText',
  publishedBy: { as: 'publishedBy', value: 'person' },
  requirements: { as: 'mappedRequirements', value: 'mappedRequirements' },
});

const reorder = fieldOrder<ProgramPolicy>(FIELDS);

/** The fields that hold null when the policy has no value (their columns are named after them). */
const NULLABLE = [
  'policyBehavior',
  'versionNumber',
  'effortEstimate',
  'recurrence',
  'source',
  'requirementText',
  'publishedOn',
] as const satisfies readonly (keyof ProgramPolicy)[];

const pad = (i: number) => String(i).padStart(5, '0');
/** Child rows' IDs: the parent's, then the place, so rows tied on GET's order keep the document's. */
export const childId = (parentId: string, tag: string, index: number) => `${parentId}.${tag}${pad(index)}`;

function columns(e: ProgramPolicy, w: WriteContext) {
  return {
    custom_id: e.customId,
    name: e.name,
    ...reviewColumns(e),
    ai_detected_gaps: JSON.stringify(e.aiDetectedGaps ?? []),
    ...nullableColumns(e, NULLABLE),
    published_by: personIdOf(w, e.publishedBy),
    ...stampColumns(e, w),
  };
}

function fileEntryOf(
  r: {
    display_name: string;
    type: string;
    url: string | null;
    note: string | null;
    added_by: string | null;
    added_on: number;
    updated_by: string | null;
    updated_on: number | null;
  },
  personKey: (id: string) => string,
): ProgramFileEntry {
  return {
    displayName: r.display_name,
    type: r.type,
    url: r.url,
    note: r.note,
    addedBy: r.added_by === null ? null : personKey(r.added_by),
    addedOn: Number(r.added_on),
    updatedBy: r.updated_by === null ? null : personKey(r.updated_by),
    updatedOn: r.updated_on === null ? null : Number(r.updated_on),
  };
}

/**
 * A file entry as stored, every field given: what it leaves out is the current entry's at the
 * same place (same name), or null, or who applies it and when.
 */
function normalizeFile(f: ProgramFileEntry, current: ProgramFileEntry | undefined, now: number, actorKey: string): ProgramFileEntry {
  const was = current && current.displayName === f.displayName ? current : undefined;
  const pick = <K extends keyof ProgramFileEntry>(k: K, fallback: ProgramFileEntry[K]) =>
    f[k] !== undefined ? f[k] : was ? was[k] : fallback;
  return {
    displayName: f.displayName,
    type: f.type,
    url: pick('url', null),
    note: pick('note', null),
    addedBy: pick('addedBy', actorKey),
    addedOn: pick('addedOn', now),
    updatedBy: pick('updatedBy', null),
    updatedOn: pick('updatedOn', null),
  };
}

/** What a new policy takes for the fields its entry leaves out. */
const defaults = (ctx: NormalizeContext): Partial<ProgramPolicy> => ({
  ...REVIEW_DEFAULTS,
  ...nullDefaults(NULLABLE),
  publishedBy: null,
  lastModifiedBy: null,
  aiDetectedGaps: [],
  assignees: [],
  approvers: [],
  entities: [],
  controls: [],
  requirements: [],
  risks: [],
  documents: [],
  versionHistory: [],
  tickets: [],
  ...createdStamps(ctx),
});

export const policiesKind: ProgramKind<ProgramPolicy, RecordedKindEvents> = {
  name: 'policies',
  record: 'policy',
  resources: ['policy'],
  links: { controls: 'control', requirements: 'framework' },
  dataKinds: ['policies', 'controls'],
  schema: ProgramPolicy,
  needs: ['frameworks'],

  async read({ q, organizationId: org, keys }) {
    const [rows, people, entities, requirements, controls, risks, tickets, documents, versions] = await Promise.all([
      selectAll(q, 'policies', org, ['custom_id', 'id']),
      peopleBySubject(q, org, 'policy'),
      entitiesBySubject(q, org, 'policy'),
      requirementsByArtifact(q, org, 'policy'),
      controlsByArtifact(q, org, 'policy'),
      risksBySubject(q, org, 'policy'),
      ticketsBySubject(q, org, 'policy'),
      selectAll(q, 'policy_documents', org, ['policy_id']),
      selectAll(q, 'policy_versions', org, ['policy_id']),
    ]);
    const personKey = (id: string) => keys.keyOf('person', id);
    // GET's order: newest first, then by row ID
    const byNewest =
      <T extends { id: string }>(at: (r: T) => number) =>
      (a: T, b: T) =>
        at(b) - at(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const docsOf = group(documents, (d) => d.policy_id);
    const versionsOf = group(versions, (v) => v.policy_id);
    const out: CurrentRecord<ProgramPolicy>[] = [];
    for (const r of rows) {
      const links = people.get(r.id) ?? [];
      const entry: ProgramPolicy = {
        key: keys.keyOf('policy', r.id),
        customId: r.custom_id,
        name: r.name,
        status: r.status as ProgramPolicy['status'],
        isRelevant: Boolean(r.is_relevant),
        nextReviewDate: r.next_review_date === null ? null : Number(r.next_review_date),
        gapStatus: r.gap_status as ProgramPolicy['gapStatus'],
        aiDetectedGaps: JSON.parse(r.ai_detected_gaps) as string[],
        publishedOn: r.published_on === null ? null : Number(r.published_on),
        assignees: links.filter((p) => p.role === 'assignee').map((p) => ({ person: personKey(p.personId), isPrimary: p.isPrimary })),
        approvers: links.filter((p) => p.role === 'approver').map((p) => personKey(p.personId)),
        entities: sorted((entities.get(r.id) ?? []).map((id) => keys.keyOf('entity', id))),
        controls: sorted((controls.get(r.id) ?? []).map((id) => keys.keyOf('control', id))),
        requirements: sorted(
          (requirements.get(r.id) ?? []).map((id) => keys.registeredKeyOf('requirement', id)).filter((k): k is string => k !== undefined),
        ),
        risks: sorted((risks.get(r.id) ?? []).map((id) => keys.keyOf('risk', id))),
        documents: (docsOf.get(r.id) ?? [])
          .sort(byNewest((d) => Number(d.added_on)))
          .map((d) =>
            fileEntryOf({ ...d, added_on: Number(d.added_on), updated_on: d.updated_on === null ? null : Number(d.updated_on) }, personKey),
          ),
        versionHistory: (versionsOf.get(r.id) ?? []).sort(byNewest((v) => Number(v.published_on))).map((v) => {
          return {
            versionName: v.version_name,
            publishedBy: v.published_by === null ? null : personKey(v.published_by),
            publishedOn: Number(v.published_on),
          };
        }),
        tickets: tickets.get(r.id) ?? [],
        ...stampsOfRow(r, personKey),
      };
      const optional = {
        department: r.department,
        notRelevantReason: r.not_relevant_reason,
        policyBehavior: r.policy_behavior,
        versionNumber: r.version_number,
        effortEstimate: r.effort_estimate,
        recurrence: r.recurrence,
        source: r.source,
        requirementText: r.requirement_text,
      };
      Object.assign(entry, optional);
      entry.publishedBy = r.published_by === null ? null : personKey(r.published_by);
      out.push({ id: r.id, entry: reorder(entry) });
    }
    return out;
  },

  normalize(entry, current, ctx) {
    const merged = mergeEntry(entry, current, defaults(ctx), FIELDS);
    merged.assignees = merged.assignees?.map((a) => ({ person: a.person, isPrimary: a.isPrimary ?? false }));
    for (const f of ['entities', 'controls', 'requirements', 'risks'] as const) merged[f] = sorted(merged[f]);
    // Stored and shown newest first (ties in the document's order): an entry's lists take that order.
    if (entry.documents !== undefined)
      merged.documents = entry.documents
        .map((d, i) => normalizeFile(d, current?.documents?.[i], ctx.now, ctx.actorKey))
        .sort((a, b) => (b.addedOn ?? 0) - (a.addedOn ?? 0));
    if (entry.versionHistory !== undefined)
      merged.versionHistory = entry.versionHistory
        .map((v) => ({ versionName: v.versionName, publishedBy: v.publishedBy ?? null, publishedOn: v.publishedOn }))
        .sort((a, b) => b.publishedOn - a.publishedOn);
    if (entry.tickets !== undefined) merged.tickets = entry.tickets.map((t) => ({ ticketId: t.ticketId, source: t.source, url: t.url }));
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),
  // what the compliance rule reads of it
  touchesCompliance: changesAny<ProgramPolicy>(['status', 'isRelevant', 'controls', 'requirements']),

  check(entry, pointer, issues) {
    repeatedAssignees(entry.assignees, pointer, issues, (person) => `lists "${person}" twice`);
  },

  references(entry, pointer) {
    const { refs, one, links } = referenceList(pointer);
    links(entry);
    for (const f of ['publishedBy', 'addedBy', 'lastModifiedBy'] as const) one('person', entry[f], f);
    entry.documents?.forEach((d, i) => {
      one('person', d.addedBy, `documents/${i}/addedBy`);
      one('person', d.updatedBy, `documents/${i}/updatedBy`);
    });
    entry.versionHistory?.forEach((v, i) => {
      one('person', v.publishedBy, `versionHistory/${i}/publishedBy`);
    });
    return refs;
  },

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'policies',
      columns,
      subject: 'policy',
      links: ['assignees', 'approvers', 'entities', 'risks', 'tickets', 'requirements', 'controls'],
      mappings: 'policy',
      ticketRowId: (subject, i) => childId(subject, 't', i),
      children: writeDocumentsAndVersions,
      dependents: [
        ['policy_documents', 'policy_id'],
        ['policy_versions', 'policy_id'],
      ],
    }),

  async events(w, changes) {
    return {
      events: await updateEvents(
        w,
        'policy',
        changes.filter((c) => c.action === 'update'),
        VIEWS,
      ),
    };
  },
};

/** A policy's documents and version history: each list rewritten whole when it changed. */
async function writeDocumentsAndVersions(w: WriteContext, upserts: readonly RecordChange<ProgramPolicy>[]): Promise<void> {
  const { db, trx, organizationId: org } = w;
  const person = (key: string | null | undefined) => personIdOf(w, key);
  const replacedDocs: string[] = [];
  const replacedVersions: string[] = [];
  const docRows: Row<'policy_documents'>[] = [];
  const versionRows: Row<'policy_versions'>[] = [];
  for (const c of upserts) {
    const a = c.after!;
    if (changedList(c, 'documents')) {
      if (c.before) replacedDocs.push(c.id);
      (a.documents ?? []).forEach(
        (d, i) =>
          void docRows.push({
            id: childId(c.id, 'd', i),
            organization_id: org,
            policy_id: c.id,
            display_name: d.displayName,
            type: d.type,
            url: d.url ?? null,
            note: d.note ?? null,
            added_by: person(d.addedBy),
            added_on: d.addedOn ?? w.now,
            updated_by: person(d.updatedBy),
            updated_on: d.updatedOn ?? null,
          }),
      );
    }
    if (changedList(c, 'versionHistory')) {
      if (c.before) replacedVersions.push(c.id);
      (a.versionHistory ?? []).forEach(
        (v, i) =>
          void versionRows.push({
            id: childId(c.id, 'v', i),
            organization_id: org,
            policy_id: c.id,
            version_name: v.versionName,
            published_by: person(v.publishedBy),
            published_on: v.publishedOn,
          }),
      );
    }
  }
  await deleteWhereIn(trx, 'policy_documents', org, 'policy_id', replacedDocs);
  await deleteWhereIn(trx, 'policy_versions', org, 'policy_id', replacedVersions);
  await insertRows(db, trx, 'policy_documents', docRows);
  await insertRows(db, trx, 'policy_versions', versionRows);
}
