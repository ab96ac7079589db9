// An estimate of the heap a value keeps alive, for caches bounded in bytes (result-cache.ts). It
// walks the value once, counting each object once, with sizes taken on the generous side of what
// V8 lays out (64-bit, no pointer compression, as the Node this project pins runs): a header per
// object plus a slot per property or element, strings by their characters (two bytes each when one
// is outside Latin-1), numbers as boxed doubles, maps and sets by their hash tables.
// test/http/result-cache-bytes.test.ts checks the estimate against the heap the cached results of a
// demo organization really retain: it must never be below it.

/** anything outside Latin-1 makes V8 store a string with two bytes per character */
const WIDE = /[\u0100-\uffff]/;

const OBJECT = 56;
const PROPERTY = 24;
const ARRAY = 48;
const ELEMENT = 8;
const STRING = 24;
const NUMBER = 16;
const MAP = 96;
const MAP_ENTRY = 56;
const SET_ENTRY = 40;

/** Estimated bytes `value` keeps alive (objects reached twice counted once). */
export function estimateBytes(value: unknown): number {
  const seen = new Set<object>();
  // property names are shared by every object that has them (V8 interns them): counted once
  const names = new Set<string>();
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        total += STRING + (WIDE.test(v) ? 2 * v.length : v.length);
        continue;
      case 'number':
        total += NUMBER;
        continue;
      case 'bigint':
        total += NUMBER + 8 * Math.ceil(v.toString(16).length / 16);
        continue;
      case 'object':
      case 'function':
        break;
      default:
        continue;
    }
    if (v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      total += ARRAY + ELEMENT * v.length;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v instanceof Map) {
      total += MAP + MAP_ENTRY * v.size;
      for (const [k, item] of v) stack.push(k, item);
    } else if (v instanceof Set) {
      total += MAP + SET_ENTRY * v.size;
      for (const item of v) stack.push(item);
    } else if (ArrayBuffer.isView(v)) {
      total += OBJECT + 2 * PROPERTY + v.byteLength;
    } else if (v instanceof Date) {
      total += OBJECT;
    } else {
      const keys = Object.keys(v);
      total += OBJECT + PROPERTY * keys.length;
      for (const key of keys) {
        if (!names.has(key)) {
          names.add(key);
          total += STRING + 2 * key.length;
        }
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}
