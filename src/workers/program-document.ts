// Program documents read in a worker thread (src/workers/pool.ts): the loader's parse, limits and
// guards (src/formats/program/load.ts) off the event loop, for the HTTP doors (PUT /v1/program,
// the console's POST /console/api/program). The document comes back in slices of its top-level
// lists, so the main thread never deserializes more than about PIECE_VALUES values at a time; a
// refusal comes back as the loader's own `validation_failed`. The places (line, column) of the
// problems the domain finds later are looked up in a worker too: for YAML that is a second parse.
// This file is the worker threads' side; the main thread's is load-program-in-pool.ts.
// Asked to (`check`), the worker also checks the document as it parsed it (precheck.ts: every
// entry's schema and rules, the kinds' digests), so the pipeline's transaction does not.
import {
  decodeUtf8,
  loadProgramBytes,
  loadProgramText,
  textLocator,
  type ProgramFormat,
  type SourcePlace,
} from '../formats/program/load.ts';
import type { ProgramLimits } from '../shared/program-limits.ts';
import { precheckDocument, type DocumentCheck } from '../domain/program/precheck.ts';
import type { Emit } from './task-messages.ts';

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
export type Outline = { whole: unknown } | { fields: Array<[string] | [string, unknown]> };
export interface Piece {
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
