// Program documents read in a worker thread (src/workers/pool.ts): the loader's parse, limits and
// guards (src/formats/program/load.ts) off the event loop, for the HTTP doors (PUT /v1/program,
// the console's POST /console/api/program). The document comes back in slices of its top-level
// lists, so the main thread never deserializes more than about PIECE_VALUES values at a time; a
// refusal comes back as the loader's own `validation_failed`. The places (line, column) of the
// problems the domain finds later are looked up in a worker too: for YAML that is a second parse.
// Asked to (`check`), the worker also checks the document as it parsed it (precheck.ts: every
// entry's schema and rules, the kinds' digests), so the pipeline's transaction does not.
import { ServiceError } from '../shared/errors.ts';
import {
  decodeUtf8,
  loadProgramBytes,
  loadProgramText,
  textLocator,
  withPlaces,
  type ProgramFormat,
  type SourcePlace,
} from '../formats/program/load.ts';
import type { ProgramLimits } from '../shared/program-limits.ts';
import { precheckDocument, type DocumentCheck } from '../domain/program/precheck.ts';
import type { WorkerPool } from './pool.ts';
import type { Emit } from './tasks.ts';

/** About how many values (objects, lists, strings…) one message carries back. */
const PIECE_VALUES = 20_000;

/** A document to read: its bytes (an HTTP body) or its text (the console's upload). */
export interface ProgramSource {
  bytes?: Uint8Array;
  text?: string;
  file: string;
  format: ProgramFormat;
  limits: ProgramLimits;
  /** check the document too (precheck.ts), for an apply with or without prune */
  check?: { prune: boolean };
}

/** The document without its top-level lists, which came as pieces: `[key]` marks a list's place. */
type Outline = { whole: unknown } | { fields: Array<[string] | [string, unknown]> };
interface Piece {
  key: string;
  items: unknown[];
}

/** Values in `value`, counted up to `cap`. */
function valueCount(value: unknown, cap: number): number {
  let n = 0;
  const stack = [value];
  while (stack.length > 0 && n < cap) {
    const item = stack.pop();
    n++;
    if (item !== null && typeof item === 'object') for (const child of Object.values(item)) stack.push(child);
  }
  return n;
}

function inPieces(value: unknown, emit: Emit): Outline {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { whole: value };
  const fields: Outline & { fields: unknown[] } = { fields: [] };
  for (const [key, item] of Object.entries(value)) {
    if (!Array.isArray(item)) {
      fields.fields.push([key, item]);
      continue;
    }
    fields.fields.push([key]);
    let items: unknown[] = [];
    let weight = 0;
    for (const entry of item) {
      items.push(entry);
      weight += valueCount(entry, PIECE_VALUES);
      if (weight >= PIECE_VALUES) {
        emit({ key, items } satisfies Piece);
        items = [];
        weight = 0;
      }
    }
    emit({ key, items } satisfies Piece);
  }
  return fields;
}

function assemble(outline: Outline, pieces: unknown[]): unknown {
  if ('whole' in outline) return outline.whole;
  const lists = new Map<string, unknown[]>();
  for (const piece of pieces as Piece[]) {
    const list = lists.get(piece.key) ?? [];
    for (const item of piece.items) list.push(item);
    lists.set(piece.key, list);
  }
  const document: Record<string, unknown> = {};
  // defineProperty: a key such as `__proto__` stays an own field, as JSON.parse makes it.
  for (const [key, ...value] of outline.fields) {
    Object.defineProperty(document, key, {
      value: value.length > 0 ? value[0] : (lists.get(key) ?? []),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return document;
}

const textOf = (source: ProgramSource) => {
  const text = source.text ?? decodeUtf8(source.bytes ?? new Uint8Array(), source.file);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};

/** The handlers run in the worker threads (src/workers/tasks.ts). */
export const programDocumentTasks = {
  'program.load': (source: ProgramSource, emit: Emit): { outline: Outline; checked?: DocumentCheck } => {
    const options = { file: source.file, format: source.format, limits: source.limits };
    const loaded = source.bytes !== undefined ? loadProgramBytes(source.bytes, options) : loadProgramText(source.text ?? '', options);
    const checked = source.check && precheckDocument(loaded.value, source.check.prune);
    return { outline: inPieces(loaded.value, emit), checked };
  },
  'program.locate': (input: ProgramSource & { pointers: string[] }): Array<SourcePlace | undefined> => {
    const locate = textLocator(textOf(input), input.file, input.format);
    return input.pointers.map(locate);
  },
};

/** A document read in the pool. */
export interface PooledProgram {
  value: unknown;
  /** what the worker's checks found, when the source asked for them (ProgramInput.checked) */
  checked?: DocumentCheck;
  /** `error` with the place of each of its problems added, as load.ts's withPlaces does */
  withPlaces(error: unknown): Promise<unknown>;
}

/** Reads a document in a worker thread; throws the loader's `validation_failed` when it refuses it. */
export async function loadProgramInPool(pool: WorkerPool, source: ProgramSource): Promise<PooledProgram> {
  const { pieces, result } = await pool.run('program.load', source);
  const { outline, checked } = result as { outline: Outline; checked?: DocumentCheck };
  const value = assemble(outline, pieces);
  const files = [source.file];
  return {
    value,
    checked,
    async withPlaces(error) {
      if (!(error instanceof ServiceError)) return error;
      // withPlaces decides which problems need a place; the places are then found in a worker.
      const asked: string[] = [];
      withPlaces(error, { value, files, locate: (pointer) => void asked.push(pointer) });
      if (asked.length === 0) return error;
      let places: Array<SourcePlace | undefined>;
      try {
        places = (await pool.run('program.locate', { ...source, pointers: asked })).result as typeof places;
      } catch {
        return error;
      }
      const byPointer = new Map(asked.map((pointer, i) => [pointer, places[i]]));
      return withPlaces(error, { value, files, locate: (pointer) => byPointer.get(pointer) });
    },
  };
}
