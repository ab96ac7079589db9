// The `changes` of the update events an apply records (`control.updated`, `policy.updated`…):
// the fields that changed, named and shaped as the resource's GET names and shapes them, so an
// apply records the same event as a move or a PATCH that makes the same change. Entries name
// records by key; this resolves them to what GET shows (a person stamp's name and email, an
// entity's ID and name…), read inside the apply's transaction after its writes.
import { changedFields, type Changes } from '../events/changes.ts';
import { loadNamedRecords, type NamedRecords } from '../../storage/db/repositories/program/program-reads.ts';
import type { KeyedEntry, WriteContext } from './kind.ts';
import type { NewEvent } from '../events/record.ts';

/** How a document field shows in GET: its name there, and what its value refers to. */
export type FieldView = {
  as: string;
  value?: 'plain' | 'person' | 'assignees' | 'people' | 'entities' | 'risks' | 'requirements' | 'mappedRequirements' | 'controls';
} | null;

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
