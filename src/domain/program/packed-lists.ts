// A program document's large child lists held as bytes, not objects (issue 36, goal (d)): a test's
// flagged resources (up to 10,000 a test, 864,209 in the 50 MiB JSON plan) were one object each on
// the event loop's heap for the whole plan, then garbage that V8 collected only when its old
// generation had doubled, so plans repeated one after another added 100-200 MB each.
//
// Where the document is parsed (a worker thread, src/workers/program-document.ts), each such list
// becomes its JSON text (in a buffer the main thread gets by transfer, or the body's own bytes);
// the entry's field reads it back on demand (a getter, src/domain/kinds/packed-fields.ts: the same
// array for every read within one synchronous stretch, a new one after), so the pipeline's code
// reads it as it reads any field, and only what needs the items makes them, one entry at a time:
// the tests kind's normalizing puts them in order when they are first read, and a plan, which
// writes no flagged resource, never reads a created test's. The references the list holds (a resource's assignees and entities) are found where it was
// packed and kept beside it, so resolving references never unpacks it (referencesOf). Once the
// answer is given, the door lets the buffers go at once (ArrayBuffer.prototype.transfer(0) frees
// the memory when called, not at the next full collection).
import type { KeyedEntry, Reference } from '../kinds/kind.ts';
import { packedReferencesOf, withoutPacked } from '../kinds/packed-fields.ts';
import type { ProgramKind } from './registry.ts';

/** The field of a kind's entries held packed: a list that can hold thousands of items per entry. */
export const PACKED_FIELDS: Readonly<Record<string, string>> = { tests: 'resources' };

/** The packed field of an entry of `kindName`, when it holds a list. */
export function packedFieldOf(kindName: string, entry: unknown): string | undefined {
  const field = PACKED_FIELDS[kindName];
  if (field === undefined || entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  return Array.isArray((entry as Record<string, unknown>)[field]) ? field : undefined;
}

/**
 * The references the packed field of an entry holds: the kind's references of the entry with that
 * field alone (and its key), so those of the entry's other fields are not repeated.
 */
export function packedReferences(kind: ProgramKind, entry: KeyedEntry, field: string, pointer: string): Reference[] {
  const alone = { key: entry.key, [field]: (entry as unknown as Record<string, unknown>)[field] } as unknown as KeyedEntry;
  return kind.references(alone, pointer);
}

/**
 * The kind's references of an entry (ProgramKind.references), those of a packed field from beside
 * it. They come last, as every kind that packs a field lists them (the tests kind: the entry's own
 * links, then its resources').
 */
export function referencesOf(kind: ProgramKind, entry: KeyedEntry, pointer: string): Reference[] {
  const references = packedReferencesOf(entry);
  if (!references) return kind.references(entry, pointer);
  return [...kind.references(withoutPacked(entry), pointer), ...references];
}
