// Controls in a program document (issue 25): every stored field, assignees, entities, the
// requirements a control meets and the risks it treats. Artifacts carry the control links. An
// update records `control.updated` with the fields that changed as GET /v1/controls/{controlId}
// names them (as PATCH does); the statuses that flip are the pipeline's computed events.
import type { CurrentRecord, NormalizeContext, ProgramKind, WriteContext } from '../kinds/kind.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
import { ProgramControl } from './program-schema.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../kinds/normalize.ts';
import { selectAll } from '../../storage/db/repositories/program/program-writes.ts';
import {
  entitiesBySubject,
  peopleBySubject,
  requirementsByControl,
  risksBySubject,
} from '../../storage/db/repositories/program/program-links.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import { fieldViews, updateEvents } from '../events/update-events.ts';
import { entryFields, fieldOrder, personIdOf, stampColumns, stampsOfRow } from '../kinds/entry-values.ts';
import { referenceList, repeatedAssignees } from '../kinds/entry-checks.ts';

/** The entry's fields, in the schema's order. */
const FIELDS = entryFields<ProgramControl>(ProgramControl);

/** How each field shows in GET /v1/controls/{controlId} (control.updated names them so). */
const VIEWS = fieldViews(FIELDS, {
  code: 'controlCode',
  name: 'controlName',
  description: 'controlDescription',
  domain: 'controlDomain',
  scope: 'controlScope',
  questions: 'controlQuestions',
  markedOutOfScopeBy: { as: 'markedOutOfScopeBy', value: 'person' },
  requirements: { as: 'mappedRequirements', value: 'requirements' },
});

const reorder = fieldOrder<ProgramControl>(FIELDS);

function columns(e: ProgramControl, w: WriteContext) {
  return {
    code: e.code,
    name: e.name,
    description: e.description ?? null,
    domain: e.domain,
    function_grouping: e.functionGrouping,
    scope: e.scope ?? 'in_scope',
    out_of_scope_reason: e.outOfScopeReason ?? null,
    marked_out_of_scope_by: personIdOf(w, e.markedOutOfScopeBy),
    questions: JSON.stringify(e.questions ?? []),
    ...stampColumns(e, w),
  };
}

/** What a new control takes for the fields its entry leaves out. */
const defaults = (ctx: NormalizeContext): Partial<ProgramControl> => ({
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
});

export const controlsKind: ProgramKind<ProgramControl, RecordedKindEvents> = {
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
        ...stampsOfRow(r, personKey),
      };
      entry.description = r.description;
      entry.outOfScopeReason = r.out_of_scope_reason;
      entry.markedOutOfScopeBy = r.marked_out_of_scope_by === null ? null : personKey(r.marked_out_of_scope_by);
      out.push({ id: r.id, entry: reorder(entry) });
    }
    return out;
  },

  normalize(entry, current, ctx) {
    const merged = mergeEntry(entry, current, defaults(ctx), FIELDS);
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
    repeatedAssignees(entry.assignees, pointer, issues, (person) => `lists "${person}" twice`);
    if (entry.scope === 'out_of_scope' && typeof entry.outOfScopeReason === 'string' && entry.outOfScopeReason.trim() === '')
      issues.push({ field: `${pointer}/outOfScopeReason`, message: 'must say why the control is out of scope' });
  },

  references(entry, pointer) {
    const { refs, one, links } = referenceList(pointer);
    links(entry);
    for (const f of ['markedOutOfScopeBy', 'addedBy', 'lastModifiedBy'] as const) one('person', entry[f], f);
    return refs;
  },

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'controls',
      columns,
      subject: 'control',
      links: ['assignees', 'entities', 'risks', 'requirements'],
      mappings: 'control',
    }),

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
