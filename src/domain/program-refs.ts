// The building blocks the program entries of evidence, tests and findings share: keys and
// references by key, names, texts, moments and links, each bounded (PRODUCT.md's lengths).
import { Type } from 'typebox';

/** A record's key, chosen by the document's author (or given by an export). */
export const EntryKey = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._~:@-]*$',
  'x-pattern-message': 'must start with a letter or digit and hold only letters, digits and . _ ~ : @ -',
  description: 'A key: 1-128 letters, digits and `. _ ~ : @ -`, starting with a letter or digit.',
});

/** Names and titles: 1-255 characters with at least one that is not a space. */
export const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
/** Free text: up to 2,000 characters. */
export const LongText = Type.String({ maxLength: 2000 });
/** Short labels (resource fields, tags). */
export const Label = Type.String({ maxLength: 255 });
/** Epoch milliseconds. */
export const Moment = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Unix epoch milliseconds.' });
export const NullableMoment = Type.Union([Moment, Type.Null()]);
/** An http(s) link. */
export const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$',
  'x-pattern-message': 'must be an http:// or https:// URL',
});

export const KeyList = (description: string) => Type.Array(EntryKey, { maxItems: 1000, uniqueItems: true, description });
export const PersonKeyList = (description: string) => Type.Array(EntryKey, { maxItems: 100, uniqueItems: true, description });

/** A requirement named by its framework's key and its own key within the framework. */
export const RequirementRef = Type.Object(
  { framework: EntryKey, requirement: EntryKey },
  { additionalProperties: false, description: 'A requirement: its framework’s key and the requirement’s key within it.' },
);
export const RequirementRefs = Type.Array(RequirementRef, { maxItems: 1000, description: 'Requirements this record is mapped to.' });

/** A ticket as the API shows it for evidence and tests (`ticketId`, `source`, `url`). */
export const Ticket = Type.Object(
  { ticketId: Type.String({ minLength: 1, maxLength: 255 }), source: Type.String({ minLength: 1, maxLength: 64 }), url: Url },
  { additionalProperties: false },
);

/** The kinds of record an entry of evidence, tests or findings names by key. */
export type RefKind = 'person' | 'entity' | 'control' | 'risk' | 'test' | 'customField';

/**
 * How keys and IDs of referenced records translate, both ways: `keyOf` names a stored record
 * (export), `idOf` finds the record a key names, in the document or in the organization (apply).
 * The program pipeline provides it (src/domain/program/).
 */
export interface Refs {
  keyOf(kind: RefKind, id: string): string | undefined;
  requirementOf(id: string): { framework: string; requirement: string } | undefined;
  idOf(kind: RefKind, key: string): string | undefined;
  requirementIdOf(framework: string, requirement: string): string | undefined;
}

/** A problem with one place of the document: a JSON pointer below the entry and a message. */
export interface EntryIssue {
  pointer: string;
  message: string;
}

/** Who and when an apply stamps the records it changes (addedBy, lastModifiedBy…). */
export interface ApplyStamp {
  now: number;
  /** the person row that stands for the actor (src/domain/people/actor-stamp.ts) */
  personId: string;
}

/** A JSON pointer segment, escaped (RFC 6901). */
export const pointerSegment = (s: string | number) => String(s).replaceAll('~', '~0').replaceAll('/', '~1');

/** Sorted copy, by plain string order (the normal form of a set of keys or IDs). */
export const sortedStrings = (values: Iterable<string>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Stable sort by a key (ties keep their order). */
export function stableSort<T>(items: readonly T[], compare: (a: T, b: T) => number): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => compare(a.item, b.item) || a.i - b.i)
    .map((x) => x.item);
}

export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Resolves every key of a list, reporting the ones that name nothing. */
export function resolveKeys(
  refs: Refs,
  kind: RefKind,
  keys: readonly string[] | undefined,
  at: string,
  issues: EntryIssue[],
  what: string,
): string[] {
  const out: string[] = [];
  (keys ?? []).forEach((key, i) => {
    const id = refs.idOf(kind, key);
    if (id === undefined) issues.push({ pointer: `${at}/${i}`, message: `names no ${what} (key "${key}") in the document or the organization` });
    else out.push(id);
  });
  return out;
}

export function resolveKey(refs: Refs, kind: RefKind, key: string | undefined, at: string, issues: EntryIssue[], what: string): string | null {
  if (key === undefined) return null;
  const id = refs.idOf(kind, key);
  if (id === undefined) {
    issues.push({ pointer: at, message: `names no ${what} (key "${key}") in the document or the organization` });
    return null;
  }
  return id;
}

export function resolveRequirements(
  refs: Refs,
  list: readonly { framework: string; requirement: string }[] | undefined,
  at: string,
  issues: EntryIssue[],
): string[] {
  const out: string[] = [];
  (list ?? []).forEach((r, i) => {
    const id = refs.requirementIdOf(r.framework, r.requirement);
    if (id === undefined)
      issues.push({
        pointer: `${at}/${i}`,
        message: `names no requirement "${r.requirement}" of framework "${r.framework}" in the document or the organization`,
      });
    else out.push(id);
  });
  return [...new Set(out)];
}

/** The keys of stored IDs, for export; an ID without a key (a dangling link) is left out. */
export function keysOf(refs: Refs, kind: RefKind, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const key = refs.keyOf(kind, id);
    if (key !== undefined) out.push(key);
  }
  return out;
}
