// Reading the parts a parser asked for (./json-stream.ts): each getter checks the JSON type of what
// it reads and refuses a wrong one with the member's JSON pointer. Members nobody reads are not
// checked, so a tool that adds fields keeps working.
import { fileError, type PathPart } from './json-stream.ts';

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface Fields {
  readonly raw: JsonObject;
  readonly path: readonly PathPart[];
  /** Text, or undefined when absent or null; blank text reads as absent. */
  string(key: string): string | undefined;
  /** A number, or a numeric string (some tools quote scores); undefined when absent. */
  number(key: string): number | undefined;
  /** A list; empty when absent. */
  array(key: string): unknown[];
  /** A nested object, or undefined when absent. */
  object(key: string): Fields | undefined;
  /** A list of objects; each checked. */
  objects(key: string): Fields[];
  /** Text or a list of texts (a few formats allow either); empty when absent. */
  strings(key: string): string[];
}

const expected = (path: readonly PathPart[], key: PathPart, what: string) => fileError([...path, key], `expected ${what}`);

/** `value` read as an object at `path`; anything else is refused, with `what` saying what was due. */
export function fieldsOf(value: unknown, path: readonly PathPart[], what = 'an object'): Fields {
  if (!isObject(value)) throw fileError(path, `expected ${what}`);
  const present = (key: string) => value[key] !== undefined && value[key] !== null;
  const self: Fields = {
    raw: value,
    path,
    string(key) {
      if (!present(key)) return undefined;
      const v = value[key];
      if (typeof v !== 'string') throw expected(path, key, 'text (a JSON string)');
      return v.trim() === '' ? undefined : v;
    },
    number(key) {
      if (!present(key)) return undefined;
      const v = value[key];
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw expected(path, key, 'a number');
      return n;
    },
    array(key) {
      if (!present(key)) return [];
      const v = value[key];
      if (!Array.isArray(v)) throw expected(path, key, 'a list (a JSON array)');
      return v;
    },
    object(key) {
      return present(key) ? fieldsOf(value[key], [...path, key]) : undefined;
    },
    objects(key) {
      return self.array(key).map((item, i) => fieldsOf(item, [...path, key, i]));
    },
    strings(key) {
      if (!present(key)) return [];
      const v = value[key];
      if (typeof v === 'string') return v.trim() ? [v] : [];
      return self.array(key).map((item, i) => {
        if (typeof item !== 'string') throw expected([...path, key], i, 'text (a JSON string)');
        return item;
      });
    },
  };
  return self;
}

/** Unique, in order, at most `max`. */
export function uniqueBy<T>(items: readonly T[], keyOf: (item: T) => string, max: number): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const key = keyOf(item);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
