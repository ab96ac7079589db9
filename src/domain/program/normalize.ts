// The one rule for what an entry leaves out (docs/program-documents.md): a field left out keeps
// the record's current value, or takes its default when the apply creates the record. `null`
// clears a nullable field; `[]` empties a list. Lists without an order in storage (entities, risks,
// requirement mappings, linked controls) are compared as sets: they are sorted here and on export.
import type { KeyedEntry, NormalizeContext } from './kind.ts';

/** Each field: the entry's, else the current record's, else the default; fields absent from all three stay absent. */
export function mergeEntry<E extends KeyedEntry>(entry: E, current: E | undefined, defaults: Partial<E>, fields: readonly (keyof E)[]): E {
  const out: Record<string, unknown> = { key: entry.key };
  for (const field of fields) {
    if (field === 'key') continue;
    const value = entry[field] !== undefined ? entry[field] : current ? current[field] : defaults[field];
    if (value !== undefined) out[field as string] = value;
  }
  return out as E;
}

/** The defaults of the authorship stamps of a record an apply creates. */
export const createdStamps = (ctx: NormalizeContext) => ({ addedBy: ctx.actorKey, addedOn: ctx.now, modifiedOn: null });

/** A record the apply changes is stamped with who and when, unless the entry says so itself. */
export function stampModified<E extends KeyedEntry & { lastModifiedBy?: string | null; modifiedOn?: number | null }>(
  normalized: E,
  given: E,
  ctx: NormalizeContext,
): E {
  const out = { ...normalized };
  if (given.lastModifiedBy === undefined) out.lastModifiedBy = ctx.actorKey;
  if (given.modifiedOn === undefined) out.modifiedOn = ctx.now;
  return out;
}

export const sorted = (values: readonly string[] | undefined): string[] | undefined =>
  values === undefined ? undefined : [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Whether a change is a creation, a deletion, or changes one of `fields` (compared as JSON). */
export const changesAny =
  <E extends KeyedEntry>(fields: readonly (keyof E)[]) =>
  (change: { action: string; before?: E; after?: E }): boolean =>
    change.action !== 'update' || fields.some((f) => JSON.stringify(change.before?.[f]) !== JSON.stringify(change.after?.[f]));
