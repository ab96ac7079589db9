// Policies in a program document (issue 25): every field GET shows, documents (links, or the
// metadata of files held elsewhere), version history, tickets, assignees, approvers, entities,
// and the mappings to controls, requirements and risks. A status that moves records
// `policy.status_changed`; other fields `policy.updated` (GET-named), as the lifecycle moves do.
import type { CurrentRecord, ProgramKind, WriteContext } from '../program/kind.ts';
import { ProgramPolicy, type ProgramFileEntry } from './program-schema.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../program/normalize.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  replaceArtifactMappings,
  replaceSubjectLinks,
  requirementsByArtifact,
  risksBySubject,
  ticketsBySubject,
  type PersonLink,
  type TicketLink,
} from '../../storage/db/repositories/program/program-links.ts';
import { updateEvents, type FieldView } from '../program/event-views.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';

const FIELDS = [
  'customId',
  'name',
  'status',
  'department',
  'isRelevant',
  'notRelevantReason',
  'nextReviewDate',
  'gapStatus',
  'aiDetectedGaps',
  'policyBehavior',
  'versionNumber',
  'effortEstimate',
  'recurrence',
  'source',
  'requirementText',
  'publishedBy',
  'publishedOn',
  'assignees',
  'approvers',
  'entities',
  'controls',
  'requirements',
  'risks',
  'documents',
  'versionHistory',
  'tickets',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const satisfies readonly (keyof ProgramPolicy)[];

const VIEWS: Record<string, FieldView> = {
  customId: { as: 'policyCustomId' },
  name: { as: 'policyName' },
  status: { as: 'status' },
  department: { as: 'department' },
  isRelevant: { as: 'isRelevant' },
  notRelevantReason: { as: 'notRelevantReason' },
  nextReviewDate: { as: 'nextReviewDate' },
  gapStatus: { as: 'gapStatus' },
  aiDetectedGaps: { as: 'aiDetectedGaps' },
  policyBehavior: { as: 'policyBehavior' },
  versionNumber: { as: 'versionNumber' },
  effortEstimate: { as: 'effortEstimate' },
  recurrence: { as: 'recurrence' },
  source: { as: 'source' },
  requirementText: { as: 'policyRequirementText' },
  publishedBy: { as: 'publishedBy', value: 'person' },
  publishedOn: { as: 'publishedOn' },
  assignees: { as: 'assignees', value: 'assignees' },
  approvers: { as: 'approvers', value: 'people' },
  entities: { as: 'entities', value: 'entities' },
  controls: { as: 'mappedControls', value: 'controls' },
  requirements: { as: 'mappedRequirements', value: 'mappedRequirements' },
  risks: { as: 'mappedRisks', value: 'risks' },
  documents: { as: 'documents' },
  versionHistory: { as: 'versionHistory' },
  tickets: { as: 'tickets' },
  addedBy: { as: 'addedBy', value: 'person' },
  addedOn: { as: 'addedOn' },
  lastModifiedBy: { as: 'lastModifiedBy', value: 'person' },
  modifiedOn: { as: 'modifiedOn' },
};

function reorder(e: ProgramPolicy): ProgramPolicy {
  const out: Record<string, unknown> = { key: e.key };
  for (const f of FIELDS) if (e[f] !== undefined) out[f] = e[f];
  return out as ProgramPolicy;
}

const pad = (i: number) => String(i).padStart(5, '0');
/** Child rows' IDs: the parent's, then the place, so rows tied on GET's order keep the document's. */
export const childId = (parentId: string, tag: string, index: number) => `${parentId}.${tag}${pad(index)}`;

function columns(e: ProgramPolicy, w: WriteContext) {
  const person = (key: string | null | undefined) => (key == null ? null : w.keys.idOf('person', key));
  return {
    custom_id: e.customId,
    name: e.name,
    status: e.status ?? 'not_uploaded',
    department: e.department ?? null,
    is_relevant: e.isRelevant ?? true,
    not_relevant_reason: e.notRelevantReason ?? null,
    next_review_date: e.nextReviewDate ?? null,
    gap_status: e.gapStatus ?? 'no_gaps',
    ai_detected_gaps: JSON.stringify(e.aiDetectedGaps ?? []),
    policy_behavior: e.policyBehavior ?? null,
    version_number: e.versionNumber ?? null,
    effort_estimate: e.effortEstimate ?? null,
    recurrence: e.recurrence ?? null,
    source: e.source ?? null,
    requirement_text: e.requirementText ?? null,
    published_by: person(e.publishedBy),
    published_on: e.publishedOn ?? null,
    added_by: person(e.addedBy),
    added_on: e.addedOn ?? w.now,
    last_modified_by: person(e.lastModifiedBy),
    modified_on: e.modifiedOn ?? null,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

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

export const policiesKind: ProgramKind<ProgramPolicy> = {
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
    const group = <T extends { policy_id: string }>(list: T[]) => {
      const map = new Map<string, T[]>();
      for (const r of list) {
        const l = map.get(r.policy_id);
        if (l) l.push(r);
        else map.set(r.policy_id, [r]);
      }
      return map;
    };
    // GET's order: newest first, then by row ID
    const byNewest =
      <T extends { id: string }>(at: (r: T) => number) =>
      (a: T, b: T) =>
        at(b) - at(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const docsOf = group(documents);
    const versionsOf = group(versions);
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
        addedOn: Number(r.added_on),
        modifiedOn: r.modified_on === null ? null : Number(r.modified_on),
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
      entry.addedBy = r.added_by === null ? null : personKey(r.added_by);
      entry.lastModifiedBy = r.last_modified_by === null ? null : personKey(r.last_modified_by);
      out.push({ id: r.id, entry: reorder(entry) });
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
        notRelevantReason: null,
        policyBehavior: null,
        versionNumber: null,
        effortEstimate: null,
        recurrence: null,
        source: null,
        requirementText: null,
        publishedBy: null,
        lastModifiedBy: null,
        isRelevant: true,
        nextReviewDate: null,
        gapStatus: 'no_gaps',
        aiDetectedGaps: [],
        publishedOn: null,
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
      },
      FIELDS,
    );
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
    const seen = new Set<string>();
    (entry.assignees ?? []).forEach((a, i) => {
      if (seen.has(a.person)) issues.push({ field: `${pointer}/assignees/${i}/person`, message: `lists "${a.person}" twice` });
      seen.add(a.person);
    });
  },

  references(entry, pointer) {
    const refs: Array<{ record: string; key: string; pointer: string }> = [];
    const list = (field: 'approvers' | 'entities' | 'controls' | 'requirements' | 'risks', record: string) =>
      (entry[field] ?? []).forEach((k, i) => void refs.push({ record, key: k, pointer: `${pointer}/${field}/${i}` }));
    (entry.assignees ?? []).forEach(
      (a, i) => void refs.push({ record: 'person', key: a.person, pointer: `${pointer}/assignees/${i}/person` }),
    );
    list('approvers', 'person');
    list('entities', 'entity');
    list('controls', 'control');
    list('requirements', 'requirement');
    list('risks', 'risk');
    for (const f of ['publishedBy', 'addedBy', 'lastModifiedBy'] as const)
      if (typeof entry[f] === 'string') refs.push({ record: 'person', key: entry[f] as string, pointer: `${pointer}/${f}` });
    (entry.documents ?? []).forEach((d, i) => {
      if (typeof d.addedBy === 'string') refs.push({ record: 'person', key: d.addedBy, pointer: `${pointer}/documents/${i}/addedBy` });
      if (typeof d.updatedBy === 'string')
        refs.push({ record: 'person', key: d.updatedBy, pointer: `${pointer}/documents/${i}/updatedBy` });
    });
    (entry.versionHistory ?? []).forEach((v, i) => {
      if (typeof v.publishedBy === 'string')
        refs.push({ record: 'person', key: v.publishedBy, pointer: `${pointer}/versionHistory/${i}/publishedBy` });
    });
    return refs;
  },

  async write(w, changes) {
    const { db, trx, organizationId: org, keys } = w;
    const created = changes.filter((c) => c.action === 'create');
    const updated = changes.filter((c) => c.action === 'update');
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);
    await insertRows(
      db,
      trx,
      'policies',
      created.map((c) => ({ id: c.id, organization_id: org, ...columns(c.after!, w) })),
    );
    for (const c of updated) await updateRow(trx, 'policies', org, c.id, columns(c.after!, w));

    const person = (key: string | null | undefined) => (key == null ? null : keys.idOf('person', key));
    const people = new Map<string, PersonLink[]>();
    const entities = new Map<string, string[]>();
    const risks = new Map<string, string[]>();
    const tickets = new Map<string, TicketLink[]>();
    const requirements = new Map<string, string[]>();
    const controls = new Map<string, string[]>();
    const replacedDocs: string[] = [];
    const replacedVersions: string[] = [];
    const docRows: Row<'policy_documents'>[] = [];
    const versionRows: Row<'policy_versions'>[] = [];
    for (const c of [...created, ...updated]) {
      const a = c.after!;
      const b = c.before;
      const changed = (f: keyof ProgramPolicy) => (b ? !same(b[f] ?? [], a[f] ?? []) : ((a[f] as unknown[] | undefined) ?? []).length > 0);
      if (changed('assignees') || changed('approvers'))
        people.set(c.id, [
          ...(a.assignees ?? []).map((p) => ({
            personId: keys.idOf('person', p.person),
            role: 'assignee' as const,
            isPrimary: p.isPrimary ?? false,
          })),
          ...(a.approvers ?? []).map((k) => ({ personId: keys.idOf('person', k), role: 'approver' as const, isPrimary: false })),
        ]);
      if (changed('entities'))
        entities.set(
          c.id,
          (a.entities ?? []).map((k) => keys.idOf('entity', k)),
        );
      if (changed('risks'))
        risks.set(
          c.id,
          (a.risks ?? []).map((k) => keys.idOf('risk', k)),
        );
      if (changed('tickets')) tickets.set(c.id, a.tickets ?? []);
      if (changed('requirements'))
        requirements.set(
          c.id,
          (a.requirements ?? []).map((k) => keys.idOf('requirement', k)),
        );
      if (changed('controls'))
        controls.set(
          c.id,
          (a.controls ?? []).map((k) => keys.idOf('control', k)),
        );
      if (changed('documents')) {
        if (b) replacedDocs.push(c.id);
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
      if (changed('versionHistory')) {
        if (b) replacedVersions.push(c.id);
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
    // Tickets' row IDs follow the place, so GET's ties keep the document's order.
    const fresh = new Set(created.map((c) => c.id));
    await replaceSubjectLinks(
      db,
      trx,
      org,
      'policy',
      { people, entities, risks, tickets },
      (subject, i) => childId(subject, 't', i),
      fresh,
    );
    await replaceArtifactMappings(db, trx, org, 'policy', { requirements, controls }, fresh);
    await deleteWhereIn(trx, 'policy_documents', org, 'policy_id', replacedDocs);
    await deleteWhereIn(trx, 'policy_versions', org, 'policy_id', replacedVersions);
    await insertRows(db, trx, 'policy_documents', docRows);
    await insertRows(db, trx, 'policy_versions', versionRows);

    if (deleted.length > 0) {
      await deleteWhereIn(trx, 'policy_documents', org, 'policy_id', deleted);
      await deleteWhereIn(trx, 'policy_versions', org, 'policy_id', deleted);
      await replaceArtifactMappings(db, trx, org, 'policy', {
        requirements: new Map(deleted.map((id) => [id, []])),
        controls: new Map(deleted.map((id) => [id, []])),
      });
      for (const table of ['subject_people', 'subject_entities', 'risk_links', 'tickets'] as const)
        await deleteWhereIn(trx, table, org, 'subject_id', deleted, 'policy');
      await deleteWhereIn(trx, 'policies', org, 'id', deleted);
    }
  },

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
