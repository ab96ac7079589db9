// What the kinds share in turning stored rows into entries and entries into rows: a nullable
// column read back, the authorship stamps both ways, assignees, and one field order per kind (an
// entry read back and one normalized compare and print alike). Each kind declares its fields;
// these do the rest the same way for all.
import type { PersonLink } from '../../storage/db/repositories/program/program-links.ts';
import type { TObject } from 'typebox';
import type { KeyedEntry, WriteContext } from './kind.ts';

/** A stored number (bigint columns come back as strings), or null. */
export const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** Sets a field to its value, or to null when it has none: an export writes every field. */
export const nullable = <T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined) => {
  target[key] = (value ?? null) as T[K];
};

/** The function that puts an entry's fields in the kind's order (the key first), leaving out those it does not give. */
export const fieldOrder =
  <E extends KeyedEntry>(fields: readonly (keyof E)[]) =>
  (e: E): E => {
    const out: Record<string, unknown> = { key: e.key };
    for (const f of fields) if (e[f] !== undefined) out[f as string] = e[f];
    return out as E;
  };

/** An assignee as the artifact kinds keep it: `isPrimary` only when true. */
export const assigneeEntry = (a: { person: string; isPrimary?: boolean }) =>
  a.isPrimary ? { person: a.person, isPrimary: true } : { person: a.person };

/** A record's assignees from its person links, in their order (`isPrimary` only when true). */
export const assigneesOfLinks = (links: readonly PersonLink[], keyOf: (id: string) => string) =>
  links.filter((p) => p.role === 'assignee').map((p) => assigneeEntry({ person: keyOf(p.personId), isPrimary: p.isPrimary }));

/** A person key as a row stores it: the person's row ID, or null. */
export const personIdOf = (w: WriteContext, key: string | null | undefined): string | null =>
  key == null ? null : w.keys.idOf('person', key);

/** The authorship stamps an entry may carry. */
export interface Stamps {
  addedBy?: string | null;
  addedOn?: number;
  lastModifiedBy?: string | null;
  modifiedOn?: number | null;
}

/** The stamps' columns, as every stamped kind stores them. */
export const stampColumns = (e: Stamps, w: WriteContext) => ({
  added_by: personIdOf(w, e.addedBy),
  added_on: e.addedOn ?? w.now,
  last_modified_by: personIdOf(w, e.lastModifiedBy),
  modified_on: e.modifiedOn ?? null,
});

/**
 * The stamps of a stored row as an entry gives them. The people are null, not left out: applied
 * elsewhere, a record without them is not stamped with the actor.
 */
export const stampsOfRow = (
  r: { added_by: string | null; added_on: number | string; last_modified_by: string | null; modified_on: number | string | null },
  personKey: (id: string) => string,
) => ({
  addedBy: r.added_by === null ? null : personKey(r.added_by),
  addedOn: Number(r.added_on),
  lastModifiedBy: r.last_modified_by === null ? null : personKey(r.last_modified_by),
  modifiedOn: num(r.modified_on),
});

/** An entry's fields in the order its schema declares them, the key aside: the one order of the kind's entries. */
export const entryFields = <E extends KeyedEntry>(schema: TObject): readonly (keyof E & string)[] =>
  Object.keys(schema.properties).filter((f) => f !== 'key') as (keyof E & string)[];

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

// Both run once per entry written or read (tens of thousands in a large apply): a kind's list of
// fields is turned into its columns and its defaults once, not at every call.
const columnsOf = new WeakMap<readonly string[], readonly (readonly [string, string])[]>();
const defaultsOf = new WeakMap<readonly string[], Readonly<Record<string, null>>>();

/** The columns of fields that hold null when the entry has no value: each stored under its name in snake case. */
export function nullableColumns<E extends object>(e: E, fields: readonly (keyof E & string)[]): Record<string, unknown> {
  let columns = columnsOf.get(fields);
  if (!columns) columnsOf.set(fields, (columns = fields.map((f) => [f, snakeCase(f)] as const)));
  const out: Record<string, unknown> = {};
  for (const [field, column] of columns) out[column] = e[field as keyof E] ?? null;
  return out;
}

/** The defaults of those fields: null (one object per list of fields, never changed). */
export function nullDefaults<F extends string>(fields: readonly F[]): Readonly<Record<F, null>> {
  let defaults = defaultsOf.get(fields);
  if (!defaults) defaultsOf.set(fields, (defaults = Object.freeze(Object.fromEntries(fields.map((f) => [f, null])))));
  return defaults as Readonly<Record<F, null>>;
}
