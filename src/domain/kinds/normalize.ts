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

/**
 * Whether two entries hold the same data (plain JSON-like values: objects, arrays, strings,
 * numbers, booleans, null). Key order does not matter and a property holding `undefined` counts as
 * absent (as in JSON). Stops at the first difference and allocates nothing: the diff compares every
 * listed record of a re-apply, where serializing both sides cost more than the rest of the diff.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const k in x) {
    const v = x[k];
    if (v === undefined) continue;
    count += 1;
    if (!sameData(v, y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) count -= 1;
  return count === 0;
}
