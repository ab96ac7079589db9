// Reading a JSON file someone hands the service, before any parser walks it. JSON.parse itself is
// not the risk; what follows is: a document nested thousands of levels deep overflows the stack of
// any recursive walk, a number of a million digits costs time and means nothing, and a file of
// gigabytes should be refused from its size, not after reading it. Each refusal is a
// `validation_failed` naming the place (a JSON pointer, '' for the whole document) with a message a
// person can act on. Nothing here knows OSCAL: any format read from a JSON file can use it.
import { readFile, stat } from 'node:fs/promises';
import { validationFailed } from '../../shared/errors.ts';

/** Deepest nesting of arrays and objects accepted (OSCAL catalogs need about 20). */
export const JSON_MAX_DEPTH = 64;
/** Longest number accepted, in characters; OSCAL documents carry no numbers at all. */
export const JSON_NUMBER_MAX_LENGTH = 40;

export interface JsonLimits {
  maxBytes: number;
  maxDepth?: number;
  maxNumberLength?: number;
}

const refuse = (message: string) => validationFailed([{ field: '', message }], `The file is refused: ${message}.`);

/** `1000 bytes`, `5.2 KiB`, `32 MiB` */
function size(bytes: number): string {
  const [unit, scale] = bytes >= 1024 * 1024 ? ['MiB', 1024 * 1024] : bytes >= 1024 ? ['KiB', 1024] : ['bytes', 1];
  return `${Math.round((bytes / scale) * 10) / 10} ${unit}`;
}

/** `line 3, column 14` of the character at `index`. */
function place(text: string, index: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${index - lineStart + 1}`;
}

/** 0-9, e, E, +, -, . */
const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d || c === 0x2e;

/**
 * One pass over the text, outside strings: the nesting depth and the length of every number stay
 * within the limits. Runs before JSON.parse, so a hostile document costs one linear scan.
 */
function checkShape(text: string, maxDepth: number, maxNumberLength: number): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included; an unterminated one is left for JSON.parse to name.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) {
        throw refuse(`is nested more than ${maxDepth} levels deep (at ${place(text, i)}); flatten the document`);
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      // Stops at the first character past the limit: a number of a million digits costs no more.
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) {
        if (++i - start + 1 > maxNumberLength) {
          throw refuse(
            `has a number longer than ${maxNumberLength} characters at ${place(text, start)}; write it as a string if it is an identifier`,
          );
        }
      }
    }
  }
}

/** JSON text → value, within the limits on depth and numbers; a syntax error names where it is. */
export function parseGuardedJson(text: string, limits: Omit<JsonLimits, 'maxBytes'> = {}): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  checkShape(body, limits.maxDepth ?? JSON_MAX_DEPTH, limits.maxNumberLength ?? JSON_NUMBER_MAX_LENGTH);
  try {
    return JSON.parse(body);
  } catch (error) {
    const detail = (error as Error).message;
    const at = /position (\d+)/.exec(detail);
    throw refuse(`is not valid JSON${at ? ` (at ${place(body, Number(at[1]))})` : ''}: ${detail}`);
  }
}

/** A file that cannot be opened is the caller's mistake, said in words; other errors go on. */
function unreadable(error: NodeJS.ErrnoException): never {
  if (error.code === 'ENOENT') throw refuse('does not exist');
  if (error.code === 'EACCES' || error.code === 'EPERM') throw refuse('cannot be read (permission denied)');
  throw error;
}

/**
 * Reads a JSON file of at most `maxBytes` bytes: the size is checked before reading (and again on
 * what was read, in case the file grew), the bytes must be UTF-8, then `parseGuardedJson`.
 */
export async function readGuardedJsonFile(path: string, limits: JsonLimits): Promise<unknown> {
  const tooLarge = (bytes: number) => refuse(`is ${size(bytes)}, over the limit of ${size(limits.maxBytes)}`);
  const info = await stat(path).catch(unreadable);
  if (!info.isFile()) throw refuse('is not a regular file');
  if (info.size > limits.maxBytes) throw tooLarge(info.size);
  const bytes = await readFile(path).catch(unreadable);
  if (bytes.length > limits.maxBytes) throw tooLarge(bytes.length);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse('is not UTF-8 text (JSON files are UTF-8)');
  }
  return parseGuardedJson(text, limits);
}
