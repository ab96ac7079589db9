// A program document written as JSON. JSON.parse does the parsing (fast, and not recursive); one
// linear pass over the text before it refuses what JSON.parse would accept but a program must not:
// nesting deeper than PROGRAM_MAX_DEPTH, numbers that are too long, beyond the safe integer range
// or not finite, a key twice in one object (JSON.parse would silently keep the last), a
// `__proto__` key, and more records than the limit. Each refusal names its place.
import { PROGRAM_MAX_DEPTH, PROGRAM_NUMBER_MAX_LENGTH, pointerOf } from '../../shared/program-limits.ts';

export interface TextRefusal {
  pointer: string;
  /** index in the text */
  index: number;
  message: string;
}

export class TextRefused extends Error {
  readonly refusal: TextRefusal;
  constructor(refusal: TextRefusal) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

interface Frame {
  object: boolean;
  keys: Set<string> | undefined;
  key: string | undefined;
  index: number;
  expectKey: boolean;
}

const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d || c === 0x2e;

/** Index of the closing quote of the string starting at `start`; text.length when unterminated. */
function stringEnd(text: string, start: number): number {
  let close = text.indexOf('"', start + 1);
  while (close !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return text.length;
}

function pathOf(stack: Frame[]): string {
  return pointerOf(stack.map((f) => (f.object ? (f.key ?? '') : f.index)));
}

/** Checks a number's text; a message when it is refused. */
export function numberIssue(literal: string): string | undefined {
  if (literal.length > PROGRAM_NUMBER_MAX_LENGTH)
    return `is a number of more than ${PROGRAM_NUMBER_MAX_LENGTH} characters; write it as a string if it is an identifier`;
  const value = Number(literal);
  if (!Number.isFinite(value)) return 'is a number too large to represent; write it as a string if it is an identifier';
  if (Number.isInteger(value) && !/[.eE]/.test(literal) && !Number.isSafeInteger(value))
    return `is an integer beyond ±${Number.MAX_SAFE_INTEGER}, which cannot be kept exactly; write it as a string if it is an identifier`;
  return undefined;
}

/**
 * One pass over JSON text: throws TextRefused at the first problem. Lenient about syntax (JSON.parse
 * names syntax errors after it). Counts the items of the lists at the top of the root object.
 */
export function checkJsonText(text: string, maxRecords: number): void {
  const stack: Frame[] = [];
  let records = 0;
  const refuse = (index: number, message: string, pointer = pathOf(stack)): never => {
    throw new TextRefused({ pointer, index, message });
  };
  const valueStart = (index: number) => {
    const top = stack[stack.length - 1];
    if (top !== undefined && !top.object && stack.length === 2 && stack[0].object && ++records > maxRecords)
      refuse(index, `holds more than ${maxRecords} records, the limit (PROGRAM_MAX_RECORDS); split the program or raise the limit`, '');
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a /* : */) continue;
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (top?.object && top.expectKey) {
        const raw = text.slice(i, end + 1);
        let key: string;
        try {
          key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        } catch {
          return; // JSON.parse names it
        }
        top.key = key;
        top.expectKey = false;
        if (key === '__proto__') refuse(i, 'is a key named `__proto__`, which is not allowed');
        if (top.keys!.has(key)) refuse(i, `is the key "${key}" a second time in the same object; keep one`);
        top.keys!.add(key);
      } else {
        valueStart(i);
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      valueStart(i);
      if (stack.length >= PROGRAM_MAX_DEPTH)
        refuse(i, `is nested more than ${PROGRAM_MAX_DEPTH} levels deep; a program document needs far fewer`);
      const object = c === 0x7b;
      stack.push({ object, keys: object ? new Set() : undefined, key: undefined, index: 0, expectKey: object });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      if (top?.object) top.expectKey = true;
      else if (top) top.index++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      valueStart(i);
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1)) && i - start < PROGRAM_NUMBER_MAX_LENGTH) i++;
      const literal = text.slice(start, i + 1);
      const issue = numberIssue(isNumberChar(text.charCodeAt(i + 1)) ? `${literal}0` : literal);
      if (issue) refuse(start, issue);
    } else {
      // true, false, null (or a syntax error JSON.parse names)
      valueStart(i);
      while (i + 1 < text.length && /[a-z]/.test(text[i + 1])) i++;
    }
  }
}

/** Line and column (1-based, columns in UTF-16 code units) of the character at `index`. */
export function lineColumn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/**
 * Where a JSON pointer is in JSON text: the index of the member's key (for an object member) or of
 * the value (for a list item), following the pointer as far as it exists. One pass, no objects
 * built: it skips every value off the pointer's path.
 */
export function locateInJson(text: string, segments: string[]): number {
  let i = skipSpace(text, 0);
  let found = i;
  for (const segment of segments) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      let at = -1;
      i = skipSpace(text, i + 1);
      while (i < text.length && text.charCodeAt(i) === 0x22) {
        const end = stringEnd(text, i);
        const raw = text.slice(i, end + 1);
        let key: string;
        try {
          key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        } catch {
          return found;
        }
        const keyIndex = i;
        i = skipSpace(text, end + 1);
        if (text.charCodeAt(i) === 0x3a) i = skipSpace(text, i + 1);
        if (key === segment) {
          at = keyIndex;
          break;
        }
        i = skipSpace(text, skipValue(text, i));
        if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
        else break;
      }
      if (at === -1) return found;
      found = at;
    } else if (c === 0x5b /* [ */) {
      if (!/^\d+$/.test(segment)) return found;
      let n = Number(segment);
      i = skipSpace(text, i + 1);
      if (text.charCodeAt(i) === 0x5d) return found;
      while (n > 0) {
        i = skipSpace(text, skipValue(text, i));
        if (text.charCodeAt(i) !== 0x2c) return found;
        i = skipSpace(text, i + 1);
        n--;
      }
      found = i;
    } else {
      return found;
    }
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index just past the value starting at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i) + 1;
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i);
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !/[,\]}\s]/.test(text[i])) i++;
  return i;
}

/** A member of a JSON object: its key, and where its value starts and ends in the text. */
export interface JsonMember {
  key: string;
  start: number;
  end: number;
}

/**
 * The members of the object starting at `start` (a `{`), in their order, and the index just past
 * it; undefined unless the text there is an object whose members are laid out as JSON says (the
 * values themselves are only skipped: JSON.parse checks them).
 */
export function jsonMembers(text: string, start: number): { members: JsonMember[]; end: number } | undefined {
  if (text.charCodeAt(start) !== 0x7b /* { */) return undefined;
  const members: JsonMember[] = [];
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 0x7d /* } */) return { members, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== 0x22 /* " */) return undefined;
    const close = stringEnd(text, i);
    if (close >= text.length) return undefined;
    let key: string;
    try {
      key = JSON.parse(text.slice(i, close + 1)) as string;
    } catch {
      return undefined;
    }
    i = skipSpace(text, close + 1);
    if (text.charCodeAt(i) !== 0x3a /* : */) return undefined;
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    if (valueEnd <= valueStart || valueEnd > text.length) return undefined;
    members.push({ key, start: valueStart, end: valueEnd });
    i = skipSpace(text, valueEnd);
    const c = text.charCodeAt(i);
    if (c === 0x7d /* } */) return { members, end: i + 1 };
    if (c !== 0x2c /* , */) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** Where each item of the list starting at `start` (a `[`) starts and ends; undefined unless laid out as JSON says. */
export function jsonItems(text: string, start: number): Array<[number, number]> | undefined {
  if (text.charCodeAt(start) !== 0x5b /* [ */) return undefined;
  const items: Array<[number, number]> = [];
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 0x5d /* ] */) return items;
  for (;;) {
    const end = skipValue(text, i);
    if (end <= i || end > text.length) return undefined;
    items.push([i, end]);
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x5d /* ] */) return items;
    if (c !== 0x2c /* , */) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** The root object's members, when the whole text is one object followed by nothing but space. */
export function jsonRootMembers(text: string): JsonMember[] | undefined {
  const laid = jsonMembers(text, skipSpace(text, 0));
  return laid && skipSpace(text, laid.end) === text.length ? laid.members : undefined;
}
