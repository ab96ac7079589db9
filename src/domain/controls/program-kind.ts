// Controls in a program document (issue 25): every stored field, assignees, entities, the
// requirements a control meets and the risks it treats. Artifacts carry the control links. An
// update records `control.updated` with the fields that changed as GET /v1/controls/{controlId}
// names them (as PATCH does); the statuses that flip are the pipeline's computed events.
import type { CurrentRecord, ProgramKind, WriteContext } from '../program/kind.ts';
import { ProgramControl } from './program-schema.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../program/normalize.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import {
  entitiesBySubject,
  peopleBySubject,
  replaceControlRequirements,
  replaceSubjectLinks,
  requirementsByControl,
  risksBySubject,
  type PersonLink,
} from '../../storage/db/repositories/program/program-links.ts';
import { updateEvents, type FieldView } from '../program/event-views.ts';

const FIELDS = [
  'code',
  'name',
  'description',
  'domain',
  'functionGrouping',
  'scope',
  'outOfScopeReason',
  'markedOutOfScopeBy',
  'questions',
  'assignees',
  'entities',
  'requirements',
  'risks',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const satisfies readonly (keyof ProgramControl)[];

/** How each field shows in GET /v1/controls/{controlId} (control.updated names them so). */
const VIEWS: Record<string, FieldView> = {
  code: { as: 'controlCode' },
  name: { as: 'controlName' },
  description: { as: 'controlDescription' },
  domain: { as: 'controlDomain' },
  functionGrouping: { as: 'functionGrouping' },
  scope: { as: 'controlScope' },
  outOfScopeReason: { as: 'outOfScopeReason' },
  markedOutOfScopeBy: { as: 'markedOutOfScopeBy', value: 'person' },
  questions: { as: 'controlQuestions' },
  assignees: { as: 'assignees', value: 'assignees' },
  entities: { as: 'entities', value: 'entities' },
  requirements: { as: 'mappedRequirements', value: 'requirements' },
  risks: { as: 'mappedRisks', value: 'risks' },
  addedBy: { as: 'addedBy', value: 'person' },
  addedOn: { as: 'addedOn' },
  lastModifiedBy: { as: 'lastModifiedBy', value: 'person' },
  modifiedOn: { as: 'modifiedOn' },
};

function reorder(e: ProgramControl): ProgramControl {
  const out: Record<string, unknown> = { key: e.key };
  for (const f of FIELDS) if (e[f] !== undefined) out[f] = e[f];
  return out as ProgramControl;
}

function columns(e: ProgramControl, w: WriteContext) {
  const person = (key: string | null | undefined) => (key == null ? null : w.keys.idOf('person', key));
  return {
    code: e.code,
    name: e.name,
    description: e.description ?? null,
    domain: e.domain,
    function_grouping: e.functionGrouping,
    scope: e.scope ?? 'in_scope',
    out_of_scope_reason: e.outOfScopeReason ?? null,
    marked_out_of_scope_by: person(e.markedOutOfScopeBy),
    questions: JSON.stringify(e.questions ?? []),
    added_by: person(e.addedBy),
    added_on: e.addedOn ?? w.now,
    last_modified_by: person(e.lastModifiedBy),
    modified_on: e.modifiedOn ?? null,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const controlsKind: ProgramKind<ProgramControl> = {
  name: 'controls',
  record: 'control',
  resources: ['control'],
  links: { requirements: 'framework' },
  dataKinds: ['controls'],
  schema: ProgramControl,
  needs: ['frameworks'],

  async read({ q, organizationId: org, keys }) {
    const [rows, people, entities, requirements, risks] = await Promise.all([
      selectAll(q, 'controls', org, ['code', 'id']),
      peopleBySubject(q, org, 'control'),
      entitiesBySubject(q, org, 'control'),
      requirementsByControl(q, org),
      risksBySubject(q, org, 'control'),
    ]);
    const personKey = (id: string) => keys.keyOf('person', id);
    const out: CurrentRecord<ProgramControl>[] = [];
    for (const r of rows) {
      const entry: ProgramControl = {
        key: keys.keyOf('control', r.id),
        code: r.code,
        name: r.name,
        domain: r.domain,
        functionGrouping: r.function_grouping as ProgramControl['functionGrouping'],
        scope: r.scope as ProgramControl['scope'],
        questions: JSON.parse(r.questions) as string[],
        assignees: (people.get(r.id) ?? [])
          .filter((p) => p.role === 'assignee')
          .map((p) => ({ person: personKey(p.personId), isPrimary: p.isPrimary })),
        entities: sorted((entities.get(r.id) ?? []).map((id) => keys.keyOf('entity', id))),
        requirements: sorted(
          (requirements.get(r.id) ?? []).map((id) => keys.registeredKeyOf('requirement', id)).filter((k): k is string => k !== undefined),
        ),
        risks: sorted((risks.get(r.id) ?? []).map((id) => keys.keyOf('risk', id))),
        addedOn: Number(r.added_on),
        modifiedOn: r.modified_on === null ? null : Number(r.modified_on),
      };
      entry.description = r.description;
      entry.outOfScopeReason = r.out_of_scope_reason;
      entry.markedOutOfScopeBy = r.marked_out_of_scope_by === null ? null : personKey(r.marked_out_of_scope_by);
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
        description: null,
        outOfScopeReason: null,
        markedOutOfScopeBy: null,
        lastModifiedBy: null,
        scope: 'in_scope',
        questions: [],
        assignees: [],
        entities: [],
        requirements: [],
        risks: [],
        ...createdStamps(ctx),
      },
      FIELDS,
    );
    merged.assignees = merged.assignees?.map((a) => ({ person: a.person, isPrimary: a.isPrimary ?? false }));
    merged.entities = sorted(merged.entities);
    merged.requirements = sorted(merged.requirements);
    merged.risks = sorted(merged.risks);
    // In scope again: the reason and who marked it out go (as PATCH does).
    if (merged.scope === 'in_scope' && entry.scope === 'in_scope' && current?.scope === 'out_of_scope') {
      if (entry.outOfScopeReason === undefined) merged.outOfScopeReason = null;
      if (entry.markedOutOfScopeBy === undefined) merged.markedOutOfScopeBy = null;
    }
    // Out of scope now: stamped by who applies it, unless the entry says.
    if (merged.scope === 'out_of_scope' && current?.scope !== 'out_of_scope' && entry.markedOutOfScopeBy === undefined)
      merged.markedOutOfScopeBy = ctx.actorKey;
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),
  // what the compliance rule reads of it
  touchesCompliance: changesAny<ProgramControl>(['scope', 'requirements']),

  check(entry, pointer, issues) {
    const seen = new Set<string>();
    (entry.assignees ?? []).forEach((a, i) => {
      if (seen.has(a.person)) issues.push({ field: `${pointer}/assignees/${i}/person`, message: `lists "${a.person}" twice` });
      seen.add(a.person);
    });
    if (entry.scope === 'out_of_scope' && typeof entry.outOfScopeReason === 'string' && entry.outOfScopeReason.trim() === '')
      issues.push({ field: `${pointer}/outOfScopeReason`, message: 'must say why the control is out of scope' });
  },

  references(entry, pointer) {
    const refs: Array<{ record: string; key: string; pointer: string }> = [];
    (entry.assignees ?? []).forEach(
      (a, i) => void refs.push({ record: 'person', key: a.person, pointer: `${pointer}/assignees/${i}/person` }),
    );
    (entry.entities ?? []).forEach((k, i) => void refs.push({ record: 'entity', key: k, pointer: `${pointer}/entities/${i}` }));
    (entry.requirements ?? []).forEach(
      (k, i) => void refs.push({ record: 'requirement', key: k, pointer: `${pointer}/requirements/${i}` }),
    );
    (entry.risks ?? []).forEach((k, i) => void refs.push({ record: 'risk', key: k, pointer: `${pointer}/risks/${i}` }));
    for (const f of ['markedOutOfScopeBy', 'addedBy', 'lastModifiedBy'] as const)
      if (typeof entry[f] === 'string') refs.push({ record: 'person', key: entry[f] as string, pointer: `${pointer}/${f}` });
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
      'controls',
      created.map((c) => ({ id: c.id, organization_id: org, ...columns(c.after!, w) })),
    );
    for (const c of updated) await updateRow(trx, 'controls', org, c.id, columns(c.after!, w));

    const people = new Map<string, PersonLink[]>();
    const entities = new Map<string, string[]>();
    const risks = new Map<string, string[]>();
    const requirements = new Map<string, string[]>();
    for (const c of [...created, ...updated]) {
      const a = c.after!;
      const b = c.before;
      const changed = (f: 'assignees' | 'entities' | 'risks' | 'requirements') =>
        b ? !same(b[f] ?? [], a[f] ?? []) : (a[f] ?? []).length > 0;
      if (changed('assignees'))
        people.set(
          c.id,
          (a.assignees ?? []).map((p) => ({ personId: keys.idOf('person', p.person), role: 'assignee', isPrimary: p.isPrimary ?? false })),
        );
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
      if (changed('requirements'))
        requirements.set(
          c.id,
          (a.requirements ?? []).map((k) => keys.idOf('requirement', k)),
        );
    }
    const fresh = new Set(created.map((c) => c.id));
    await replaceSubjectLinks(db, trx, org, 'control', { people, entities, risks }, () => '', fresh);
    await replaceControlRequirements(db, trx, org, requirements, fresh);

    if (deleted.length > 0) {
      await deleteWhereIn(trx, 'control_requirements', org, 'control_id', deleted);
      await deleteWhereIn(trx, 'control_artifacts', org, 'control_id', deleted);
      for (const table of ['subject_people', 'subject_entities', 'risk_links', 'tickets'] as const)
        await deleteWhereIn(trx, table, org, 'subject_id', deleted, 'control');
      await deleteWhereIn(trx, 'controls', org, 'id', deleted);
    }
  },

  async events(w, changes) {
    return {
      events: await updateEvents(
        w,
        'control',
        changes.filter((c) => c.action === 'update'),
        VIEWS,
      ),
    };
  },
};
