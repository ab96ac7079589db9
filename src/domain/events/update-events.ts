// The `changes` of the update events an apply records (`control.updated`, `policy.updated`…):
// the fields that changed, named and shaped as the resource's GET names and shapes them, so an
// apply records the same event as a move or a PATCH that makes the same change. Entries name
// records by key; this resolves them to what GET shows (a person stamp's name and email, an
// entity's ID and name…), read inside the apply's transaction after its writes.
import { changedFields, type Changes } from './changes.ts';
import { loadNamedRecords, type NamedRecords } from '../../storage/db/repositories/program/program-reads.ts';
import type { EventContext, KeyedEntry, RecordChange, WriteContext } from '../kinds/kind.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import type { NewEvent } from './record.ts';

/** How a document field shows in GET: its name there, and what its value refers to. */
export type FieldView = {
  as: string;
  value?: 'plain' | 'person' | 'assignees' | 'people' | 'entities' | 'risks' | 'requirements' | 'mappedRequirements' | 'controls';
} | null;

/** How the fields several kinds share show in GET, unless a kind says otherwise. */
const SHARED_VIEWS: Readonly<Record<string, FieldView>> = {
  assignees: { as: 'assignees', value: 'assignees' },
  approvers: { as: 'approvers', value: 'people' },
  entities: { as: 'entities', value: 'entities' },
  controls: { as: 'mappedControls', value: 'controls' },
  risks: { as: 'mappedRisks', value: 'risks' },
  addedBy: { as: 'addedBy', value: 'person' },
  lastModifiedBy: { as: 'lastModifiedBy', value: 'person' },
};

/** How a kind's fields show in GET: as `views` say (a string renames a plain field), else as SHARED_VIEWS say, else under their own names as they are. */
export const fieldViews = (fields: readonly string[], views: Readonly<Record<string, string | FieldView>>): Record<string, FieldView> =>
  Object.fromEntries(
    fields.map((f) => {
      const view = views[f] ?? SHARED_VIEWS[f] ?? f;
      return [f, typeof view === 'string' ? { as: view } : view];
    }),
  );

const add = (set: Set<string>, v: unknown) => {
  if (typeof v === 'string') set.add(v);
};

/** The update events' changes of each updated record, GET-named; records whose GET shows no change have none. */
export async function getShapedChanges<E extends KeyedEntry>(
  w: WriteContext,
  updates: ReadonlyArray<{ id: string; before?: E; after?: E }>,
  views: Readonly<Record<string, FieldView>>,
): Promise<Map<string, Changes>> {
  const ids = {
    people: new Set<string>(),
    entities: new Set<string>(),
    risks: new Set<string>(),
    requirements: new Set<string>(),
    controls: new Set<string>(),
  };
  const raw = updates.map((u) => ({ id: u.id, changes: changedFields(u.before ?? {}, u.after ?? {}) }));
  for (const { changes } of raw) {
    for (const [field, change] of Object.entries(changes)) {
      const view = views[field];
      if (!view?.value || view.value === 'plain') continue;
      for (const side of [change.before, change.after]) {
        const values = Array.isArray(side) ? side : [side];
        for (const v of values) {
          if (view.value === 'person') add(ids.people, typeof v === 'string' ? w.keys.idOf('person', v) : undefined);
          else if (view.value === 'assignees') add(ids.people, w.keys.idOf('person', (v as { person: string }).person));
          else if (view.value === 'people') add(ids.people, w.keys.idOf('person', v as string));
          else if (view.value === 'entities') add(ids.entities, w.keys.idOf('entity', v as string));
          else if (view.value === 'risks') add(ids.risks, w.keys.idOf('risk', v as string));
          else if (view.value === 'requirements' || view.value === 'mappedRequirements')
            add(ids.requirements, w.keys.idOf('requirement', v as string));
          else if (view.value === 'controls') add(ids.controls, w.keys.idOf('control', v as string));
        }
      }
    }
  }
  const names = await loadNamedRecords(w.trx, w.organizationId, {
    people: [...ids.people],
    entities: [...ids.entities],
    risks: [...ids.risks],
    requirements: [...ids.requirements],
    controls: [...ids.controls],
  });
  const out = new Map<string, Changes>();
  for (const { id, changes } of raw) {
    const shaped: Changes = {};
    for (const [field, change] of Object.entries(changes)) {
      const view = views[field];
      if (view === null || view === undefined) continue;
      const c: { before?: unknown; after?: unknown } = {};
      if (change.before !== undefined) c.before = shape(w, names, view.value ?? 'plain', change.before);
      if (change.after !== undefined) c.after = shape(w, names, view.value ?? 'plain', change.after);
      shaped[view.as] = c;
    }
    if (Object.keys(shaped).length > 0) out.set(id, shaped);
  }
  return out;
}

function shape(w: WriteContext, names: NamedRecords, kind: NonNullable<FieldView>['value'] & string, value: unknown): unknown {
  const id = (record: string, key: string) => w.keys.idOf(record, key);
  if (value === null) return null;
  switch (kind) {
    case 'person':
      return names.people.get(id('person', value as string));
    case 'people':
      return (value as string[]).map((k) => names.people.get(id('person', k)));
    case 'assignees':
      return (value as Array<{ person: string; isPrimary?: boolean }>).map((a) => ({
        ...names.people.get(id('person', a.person)),
        isPrimary: a.isPrimary ?? false,
      }));
    case 'entities':
      return (value as string[]).map((k) => ({ entityId: id('entity', k), entityName: names.entities.get(id('entity', k)) }));
    case 'risks':
      return (value as string[]).map((k) => ({ riskId: id('risk', k), riskName: names.risks.get(id('risk', k)) }));
    case 'requirements':
      return (value as string[]).map((k) => {
        const r = names.requirements.get(id('requirement', k));
        return { frameworkName: r?.frameworkName, requirementCode: r?.code, requirementName: r?.name };
      });
    case 'mappedRequirements':
      return (value as string[]).map((k) => {
        const rid = id('requirement', k);
        const r = names.requirements.get(rid);
        return {
          frameworkId: r?.frameworkId,
          frameworkName: r?.frameworkName,
          requirementId: rid,
          requirementCode: r?.code,
          requirementName: r?.name,
        };
      });
    case 'controls':
      return (value as string[]).map((k) => {
        const cid = id('control', k);
        const c = names.controls.get(cid);
        return { controlId: cid, controlCode: c?.code, controlName: c?.name };
      });
    default:
      return value;
  }
}

/** Fields whose change alone makes no `<resource>.updated`: every write sets them. */
const STAMPS = new Set(['lastModifiedBy', 'modifiedOn']);

/**
 * The events of updated records, as the moves record them: `<resource>.status_changed` when the
 * status moved (when the resource has one), then `<resource>.updated` with the other fields that
 * changed, GET-named, when any besides the stamps did.
 */
export async function updateEvents<E extends KeyedEntry & { status?: string }>(
  w: WriteContext,
  resource: 'control' | 'policy' | 'evidence' | 'test',
  updates: ReadonlyArray<{ id: string; publicId?: string; before?: E; after?: E }>,
  views: Readonly<Record<string, FieldView>>,
): Promise<NewEvent[]> {
  const shaped = await getShapedChanges(w, updates, views);
  const events: NewEvent[] = [];
  for (const u of updates) {
    const resourceId = u.publicId ?? u.id;
    if (resource !== 'control' && u.before?.status !== undefined && u.after?.status !== undefined && u.before.status !== u.after.status)
      events.push({
        type: `${resource}.status_changed`,
        resourceId,
        occurredAt: w.now,
        data: { before: u.before.status, after: u.after.status },
      } as NewEvent);
    const { status: _status, ...changes } = shaped.get(u.id) ?? {};
    if (Object.keys(changes).some((field) => !STAMPS.has(field)))
      events.push({ type: `${resource}.updated`, resourceId, occurredAt: w.now, data: { changes } } as NewEvent);
  }
  return events;
}

/** Who and when: they change with every change, so on their own they are no update. */
const SHAPE_STAMPS: ReadonlySet<string> = new Set(['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn']);

/**
 * The events of updated records whose GET shape the kind builds from the entry (evidence, tests),
 * as the moves record them: `<resource>.status_changed` when GET's status moved, then
 * `<resource>.updated` with GET's changed fields when any besides the stamps did. `shapes` gives a
 * change's shape before and after, with the names read once per apply.
 */
export async function shapedUpdateEvents<E extends KeyedEntry>(
  w: EventContext,
  resource: 'evidence' | 'test',
  changes: readonly RecordChange<E>[],
  shapes: (c: RecordChange<E>, lookups: NameLookups) => Promise<[Record<string, unknown>, Record<string, unknown>]>,
): Promise<{ events: NewEvent[] }> {
  const updates = changes.filter((c) => c.action === 'update');
  if (updates.length === 0) return { events: [] };
  const lookups = await w.names();
  const events: NewEvent[] = [];
  for (const c of updates) {
    const [{ status: b, ...before }, { status: a, ...after }] = await shapes(c, lookups);
    if (b !== a)
      events.push({ type: `${resource}.status_changed`, resourceId: c.id, occurredAt: w.now, data: { before: b, after: a } } as NewEvent);
    const fieldChanges = changedFields(before, after);
    // as the moves do: an update event only when a field besides the stamps changed
    if (Object.keys(fieldChanges).some((f) => !SHAPE_STAMPS.has(f)))
      events.push({ type: `${resource}.updated`, resourceId: c.id, occurredAt: w.now, data: { changes: fieldChanges } } as NewEvent);
  }
  return { events };
}
