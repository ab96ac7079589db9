// The register of entries whose large child list is held packed (src/domain/program/packed-lists.ts
// says why and how): the getter that reads such a field on demand, and what a kind needs to work
// with one without unpacking it. Here, beside the kind contract, because a kind's own normalizing
// (the tests kind's) uses it and the kinds never import the program engine.
import type { Reference } from './kind.ts';

interface Packed {
  field: string;
  references: Reference[];
  /** the length of its text, in bytes */
  bytes: number;
}

const packedEntries = new WeakMap<object, Packed>();

/**
 * Makes `entry[field]` read `unpack()` on demand: the same value for the reads of one synchronous
 * stretch (normalizing an entry reads the field more than once), made anew after it. The field
 * keeps its place among the entry's fields (it is there already, as a placeholder).
 */
export function unpackOnDemand(entry: object, field: string, unpack: () => unknown, references: Reference[], bytes: number): void {
  let held: unknown;
  Object.defineProperty(entry, field, {
    enumerable: true,
    configurable: true,
    get() {
      if (held === undefined) {
        held = unpack();
        queueMicrotask(() => {
          held = undefined;
        });
      }
      return held;
    },
    set(value: unknown) {
      // a plain field again: written as any other
      Object.defineProperty(entry, field, { value, enumerable: true, configurable: true, writable: true });
      packedEntries.delete(entry);
    },
  });
  packedEntries.set(entry, { field, references, bytes });
}

/** The references a packed field holds, found where it was packed; undefined when nothing of the entry is packed. */
export const packedReferencesOf = (entry: object): Reference[] | undefined => packedEntries.get(entry)?.references;

/** The length in bytes of an entry's packed text (0 when nothing of it is packed): what unpacking it makes, roughly. */
export const packedBytes = (entry: object): number => packedEntries.get(entry)?.bytes ?? 0;

/** Whether `entry[field]` is held packed (read on demand). */
export const isPacked = (entry: object, field: string): boolean => packedEntries.get(entry)?.field === field;

/** The entry's own fields but its packed one, read without unpacking it. */
export function withoutPacked<E extends object>(entry: E): E {
  const packed = packedEntries.get(entry);
  if (!packed) return entry;
  const rest: Record<string, unknown> = {};
  for (const name of Object.keys(entry)) if (name !== packed.field) rest[name] = (entry as Record<string, unknown>)[name];
  return rest as E;
}

/**
 * Makes `target[field]` the value `make()` gives, made at its first read and kept: a normalized
 * entry whose packed list no phase reads (a created test's resources in a plan, which writes no
 * flagged resource) never unpacks it. The field keeps its place among the target's fields.
 */
export function lazyField(target: object, field: string, make: () => unknown): void {
  let made = false;
  let value: unknown;
  const plain = (v: unknown) => Object.defineProperty(target, field, { value: v, enumerable: true, configurable: true, writable: true });
  Object.defineProperty(target, field, {
    enumerable: true,
    configurable: true,
    get() {
      if (!made) {
        value = make();
        made = true;
      }
      return value;
    },
    set: plain,
  });
}
