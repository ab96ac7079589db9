// Reading a program document (docs/program-documents.md, "Loading"): YAML or JSON, one file or a
// folder of files that together make one document, into a plain object, plus a way to map a JSON
// pointer back to (file, line, column) for error messages. Everything read is bounded (src/shared/program-limits.ts);
// whatever is refused is a `validation_failed` whose details name the place as a JSON pointer
// (`field`) and, when known, the file, line and column.
//
// A folder: every `.yaml`, `.yml` and `.json` file in it and its subfolders (names starting with
// `.` skipped), in the order of their paths. Each file is an object carrying the same `version`;
// its lists are concatenated, in file order, into the document's lists of the same name; any other
// top-level field may be in one file only (a second one is refused naming both files).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ServiceError, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { checkJsonText, jsonRootMembers, lineColumn, locateInJson, TextRefused, type JsonMember } from './json.ts';
import {
  byteSize,
  DEFAULT_PROGRAM_MAX_YAML_BYTES,
  PROGRAM_MAX_FILES,
  PROGRAM_MAX_ISSUES,
  pointerOf,
  segmentsOf,
  type ProgramLimits,
} from '../../shared/program-limits.ts';
import { locateInYaml, parseYamlText } from './yaml.ts';

export type ProgramFormat = 'yaml' | 'json';
export const PROGRAM_FORMATS: readonly ProgramFormat[] = ['yaml', 'json'];

export interface SourcePlace {
  file: string;
  line: number;
  column: number;
}

/** A problem with a document: `field` is a JSON pointer; the place in the file when known. */
export interface ProgramIssue extends FieldIssue {
  file?: string;
  line?: number;
  column?: number;
}

export interface LoadedProgram {
  /** the document as plain data (objects, lists, strings, numbers, booleans, null) */
  value: unknown;
  /** the files read, as named in messages */
  files: string[];
  /** where the value at `pointer` (or its deepest existing parent) was written */
  locate(pointer: string): SourcePlace | undefined;
}

/** The format a file's name says: `.json` is JSON, `.yaml`/`.yml` YAML; undefined otherwise. */
export function formatOfName(name: string): ProgramFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return undefined;
}

function refused(issues: ProgramIssue[], message?: string): ServiceError {
  return validationFailed(issues, message ?? 'The program document is refused.');
}

/** A document's bytes as text (a BOM dropped); refused unless UTF-8. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw refused([{ field: '', message: 'is not UTF-8 text; save the document as UTF-8', file }]);
  }
}

/**
 * Where JSON.parse stopped, when its message does not say (`Unexpected token '}', ..."`): the YAML
 * parser (JSON is YAML) finds the same place, for texts small enough to parse twice cheaply.
 */
function syntaxErrorIndex(text: string): number {
  if (text.length > 1024 * 1024) return 0;
  try {
    parseYamlText(text);
  } catch (error) {
    if (error instanceof TextRefused) return error.refusal.index;
  }
  return 0;
}

/** Whether a string (or a key) anywhere in `value` holds U+0000; walked with a stack of values alone. */
function holdsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true;
    } else if (Array.isArray(item)) {
      for (const child of item) stack.push(child);
    } else if (item !== null && typeof item === 'object') {
      for (const key in item) {
        if (key.includes('\u0000')) return true;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * The pointer of the first string holding U+0000, which PostgreSQL text cannot store (and no
 * person's text holds); walked with a stack, and only when there is one (holdsNul): the path of
 * every value of a large document was most of the memory its reading took (issue 36).
 */
function nulPointer(value: unknown): string | undefined {
  if (!holdsNul(value)) return undefined;
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return pointerOf(path);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], path: [...path, i] });
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (key.includes('\u0000')) return pointerOf([...path, key]);
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return undefined;
}

/** Items of the lists at the top of the document. */
function countRecords(value: unknown): number {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 0;
  let n = 0;
  for (const v of Object.values(value)) if (Array.isArray(v)) n += v.length;
  return n;
}

const tooManyRecords = (max: number) =>
  `holds more than ${max} records, the limit (PROGRAM_MAX_RECORDS); split the program or raise the limit`;

/**
 * One document's text. `format` undefined: JSON when the text starts with `{`, YAML otherwise
 * (JSON is YAML too, so a JSON text always reads).
 */
export function loadProgramText(text: string, options: { file?: string; format?: ProgramFormat; limits: ProgramLimits }): LoadedProgram {
  const file = options.file ?? 'document';
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const format = options.format ?? (/^\s*[{[]/.test(body) ? 'json' : 'yaml');
  const place = (index: number): SourcePlace => ({ file, ...lineColumn(body, index) });
  let value: unknown;
  try {
    if (format === 'json') {
      checkJsonText(body, options.limits.maxRecords);
      try {
        value = JSON.parse(body);
      } catch (error) {
        const detail = (error as Error).message;
        const at = /position (\d+)/.exec(detail);
        throw new TextRefused({
          pointer: '',
          index: at ? Number(at[1]) : syntaxErrorIndex(body),
          message: `is not valid JSON: ${detail.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '')}`,
        });
      }
    } else {
      const maxYaml = options.limits.maxYamlBytes ?? DEFAULT_PROGRAM_MAX_YAML_BYTES;
      // Characters, not bytes: a UTF-8 text has at least as many bytes as characters.
      const bytes = body.length > maxYaml / 3 ? Buffer.byteLength(body) : body.length;
      if (bytes > maxYaml) {
        throw new TextRefused({
          pointer: '',
          index: 0,
          message: `is YAML of ${byteSize(bytes)}, over the limit of ${byteSize(maxYaml)} for YAML (PROGRAM_MAX_YAML_BYTES); send a program this large as JSON, which reads many times faster`,
        });
      }
      value = parseYamlText(body).value;
    }
  } catch (error) {
    if (!(error instanceof TextRefused)) throw error;
    const { pointer, index, message } = error.refusal;
    throw refused([{ field: pointer, message, ...place(index) }]);
  }
  if (countRecords(value) > options.limits.maxRecords) {
    throw refused([{ field: '', message: tooManyRecords(options.limits.maxRecords), file }]);
  }
  const nul = nulPointer(value);
  const loaded: LoadedProgram = { value, files: [file], locate: textLocator(body, file, format) };
  if (nul !== undefined) {
    throw refused([{ field: nul, message: 'must not contain the NUL character (U+0000)', ...loaded.locate(nul) }]);
  }
  return loaded;
}

/** Where the value at a JSON pointer (or its deepest existing parent) is written in `body`. */
export function textLocator(body: string, file: string, format: ProgramFormat): (pointer: string) => SourcePlace {
  const place = (index: number): SourcePlace => ({ file, ...lineColumn(body, index) });
  let yamlDocument: ReturnType<typeof parseYamlText>['document'] | undefined;
  return (pointer) => {
    const segments = segmentsOf(pointer);
    if (format === 'json') return place(locateInJson(body, segments));
    // The YAML syntax tree is not kept (it costs many times the text); it is made again once,
    // when a message needs a place.
    yamlDocument ??= parseYamlText(body, { keepDocument: true }).document;
    return place(locateInYaml(yamlDocument, segments));
  };
}

/**
 * A JSON document's text and its root object's members, for a reader that parses it a member and
 * an item at a time (src/workers/program-document.ts) instead of whole: the same size, UTF-8 and
 * text checks as loadProgramBytes, with their refusals. Undefined when the text is not one object
 * laid out as JSON says, or may hold U+0000 (`\u0000`): loadProgramBytes reads those whole and
 * names the problem. The items' values are JSON.parse's, so they are plain data, as the whole's.
 */
export function jsonInParts(
  bytes: Uint8Array,
  options: { file?: string; limits: ProgramLimits },
): { text: string; members: JsonMember[] } | undefined {
  const file = options.file ?? 'document';
  if (bytes.length > options.limits.maxBytes) return undefined;
  const text = decodeUtf8(bytes, file);
  try {
    checkJsonText(text, options.limits.maxRecords);
  } catch (error) {
    if (!(error instanceof TextRefused)) throw error;
    const { pointer, index, message } = error.refusal;
    throw refused([{ field: pointer, message, file, ...lineColumn(text, index) }]);
  }
  if (text.includes('\\u0000')) return undefined;
  const members = jsonRootMembers(text);
  return members && { text, members };
}

/** One document's bytes (an HTTP body, a file): size and UTF-8 first. */
export function loadProgramBytes(
  bytes: Uint8Array,
  options: { file?: string; format?: ProgramFormat; limits: ProgramLimits },
): LoadedProgram {
  const file = options.file ?? 'document';
  if (bytes.length > options.limits.maxBytes) {
    throw refused([
      {
        field: '',
        message: `is ${byteSize(bytes.length)}, over the limit of ${byteSize(options.limits.maxBytes)} (PROGRAM_MAX_BYTES)`,
        file,
      },
    ]);
  }
  return loadProgramText(decodeUtf8(bytes, file), options);
}

function unreadable(path: string) {
  return (error: NodeJS.ErrnoException): never => {
    if (error.code === 'ENOENT') throw refused([{ field: '', message: 'does not exist', file: path }], `${path} does not exist.`);
    if (error.code === 'EACCES' || error.code === 'EPERM')
      throw refused([{ field: '', message: 'cannot be read (permission denied)', file: path }], `${path} cannot be read.`);
    throw error;
  };
}

/** The document files of a folder, by relative path; at most PROGRAM_MAX_FILES. */
async function documentFiles(folder: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(unreadable(dir));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if ((entry.isFile() || entry.isSymbolicLink()) && formatOfName(entry.name)) files.push(path);
    }
    if (files.length > PROGRAM_MAX_FILES) {
      throw refused([{ field: '', message: `holds more than ${PROGRAM_MAX_FILES} document files`, file: folder }]);
    }
  }
  const key = (p: string) => relative(folder, p).split(sep).join('/');
  return files.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A file or a folder of files: one document. */
export async function loadProgramPath(path: string, limits: ProgramLimits): Promise<LoadedProgram> {
  const info = await stat(path).catch(unreadable(path));
  if (info.isFile()) {
    if (info.size > limits.maxBytes) {
      throw refused([
        { field: '', message: `is ${byteSize(info.size)}, over the limit of ${byteSize(limits.maxBytes)} (PROGRAM_MAX_BYTES)`, file: path },
      ]);
    }
    const bytes = await readFile(path).catch(unreadable(path));
    return loadProgramBytes(bytes, { file: path, format: formatOfName(path), limits });
  }
  if (!info.isDirectory()) throw refused([{ field: '', message: 'is neither a file nor a folder', file: path }]);
  const files = await documentFiles(path);
  if (files.length === 0) {
    throw refused([{ field: '', message: 'holds no .yaml, .yml or .json file', file: path }], `${path} holds no document file.`);
  }
  let total = 0;
  const parts: LoadedProgram[] = [];
  for (const file of files) {
    const info = await stat(file).catch(unreadable(file));
    total += info.size;
    if (total > limits.maxBytes) {
      throw refused([
        {
          field: '',
          message: `holds files of more than ${byteSize(limits.maxBytes)} in all, over the limit (PROGRAM_MAX_BYTES)`,
          file: path,
        },
      ]);
    }
    const bytes = await readFile(file).catch(unreadable(file));
    parts.push(loadProgramBytes(bytes, { file, format: formatOfName(file), limits }));
  }
  return mergePrograms(parts, path, limits);
}

interface Segment {
  part: LoadedProgram;
  /** index of its first item in the merged list */
  start: number;
}

/**
 * Files' documents → one: lists concatenated in order, `version` the same in every file, any other
 * field in one file only. Throws every problem found (up to PROGRAM_MAX_ISSUES).
 */
export function mergePrograms(parts: LoadedProgram[], folder: string, limits: ProgramLimits): LoadedProgram {
  if (parts.length === 1) return parts[0];
  const issues: ProgramIssue[] = [];
  const merged: Record<string, unknown> = {};
  const lists = new Map<string, Segment[]>();
  const owners = new Map<string, LoadedProgram>();
  for (const part of parts) {
    const [file] = part.files;
    const value = part.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ field: '', message: 'must be an object (a part of the program document, with its `version`)', file });
      continue;
    }
    const record = value as Record<string, unknown>;
    if (!('version' in record)) issues.push({ field: '', message: 'has no `version`; every file of a folder carries it', file });
    for (const [key, item] of Object.entries(record)) {
      const owner = owners.get(key);
      if (key === 'version') {
        if (owner === undefined) {
          owners.set(key, part);
          merged.version = item;
        } else if (item !== merged.version) {
          const at = part.locate('/version');
          issues.push({
            field: '/version',
            message: `is ${JSON.stringify(item)}, but ${owner.files[0]} says ${JSON.stringify(merged.version)}; every file carries the same version`,
            ...at,
          });
        }
      } else if (Array.isArray(item) && (owner === undefined || lists.has(key))) {
        const segments = lists.get(key) ?? [];
        const list = (merged[key] as unknown[] | undefined) ?? [];
        segments.push({ part, start: list.length });
        for (const entry of item) list.push(entry);
        merged[key] = list;
        lists.set(key, segments);
        owners.set(key, part);
      } else if (owner !== undefined) {
        const at = part.locate(pointerOf([key]));
        issues.push({
          field: pointerOf([key]),
          message: `is also in ${owner.files[0]}; only lists may be split across files, and \`${key}\` is written in ${
            lists.has(key) || Array.isArray(item) ? 'one file as a list and in another as something else' : 'one file only'
          }`,
          ...at,
        });
      } else {
        owners.set(key, part);
        merged[key] = item;
      }
      if (issues.length >= PROGRAM_MAX_ISSUES) break;
    }
  }
  if (issues.length > 0) throw refused(issues.slice(0, PROGRAM_MAX_ISSUES), `The folder ${folder} does not make one program document.`);
  if (countRecords(merged) > limits.maxRecords) throw refused([{ field: '', message: tooManyRecords(limits.maxRecords), file: folder }]);
  return {
    value: merged,
    files: parts.flatMap((p) => p.files),
    locate(pointer) {
      const [head, index, ...rest] = segmentsOf(pointer);
      if (head === undefined) return { file: folder, line: 1, column: 1 };
      const segments = lists.get(head);
      if (segments !== undefined && index !== undefined && /^\d+$/.test(index)) {
        const n = Number(index);
        const segment = segments.findLast((s) => s.start <= n) ?? segments[0];
        return segment.part.locate(pointerOf([head, n - segment.start, ...rest]));
      }
      const owner = segments?.[0]?.part ?? owners.get(head);
      return owner?.locate(pointer);
    },
  };
}

/**
 * A `validation_failed` about a loaded document with the place of each problem added (file, line,
 * column), so that a person can go to it. Other errors are returned as they are.
 */
export function withPlaces(error: unknown, loaded: LoadedProgram): unknown {
  if (!(error instanceof ServiceError) || error.code !== 'validation_failed') return error;
  const details = error.details.map((detail) => {
    if (typeof detail !== 'object' || detail === null || !('field' in detail) || 'line' in detail) return detail;
    const field = (detail as FieldIssue).field;
    if (field !== '' && !field.startsWith('/')) return detail;
    const place = loaded.locate(field);
    return place ? { ...detail, ...place } : detail;
  });
  const placed = new ServiceError(error.code, error.message, details);
  return placed;
}

/** `controls.yaml:12:5: /controls/3/name must not be blank` */
export function issueLine(issue: ProgramIssue): string {
  const where = issue.file !== undefined ? `${issue.file}${issue.line !== undefined ? `:${issue.line}:${issue.column}` : ''}: ` : '';
  return `${where}${issue.field === '' ? '(the document)' : issue.field} ${issue.message}`;
}
