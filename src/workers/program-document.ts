// Program documents read in a worker thread (src/workers/pool.ts): the loader's parse, limits and
// guards (src/formats/program/load.ts) off the event loop, for the HTTP doors (PUT /v1/program,
// the console's POST /console/api/program). The document comes back in slices of its top-level
// lists, each the JSON text of about PIECE_CHARS characters, so the main thread parses a slice at
// a time, between other requests; a refusal comes back as the loader's own `validation_failed`.
// JSON text rather than the objects themselves (issue 36, goal (d)): V8's JSON.parse makes far
// less of it than the structured clone makes of the same objects (a 50 MiB document: 72 MB of heap
// against 126 MB), and its slices are measured in characters, not guessed from a count of values. The places (line, column) of the
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

/** About how many characters of JSON text one message carries back. */
const PIECE_CHARS = 1024 * 1024;

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
/** Items of the top-level list `key`: `json` is the JSON text of a list of them. */
export interface Piece {
  key: string;
  json: string;
}

function inPieces(value: unknown, emit: Emit, large: boolean): Outline {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { whole: value };
  const fields: Outline & { fields: unknown[] } = { fields: [] };
  for (const [key, item] of Object.entries(value)) {
    if (!Array.isArray(item)) {
      fields.fields.push([key, item]);
      continue;
    }
    fields.fields.push([key]);
    let texts: string[] = [];
    let chars = 0;
    let sent = 0;
    const send = () => emit({ key, json: `[${texts.join(',')}]` } satisfies Piece);
    for (let i = 0; i < item.length; i++) {
      // plain data (the loader's guarantee): an entry is never undefined, so never left out
      const text = JSON.stringify(item[i]) ?? 'null';
      // sent, so let go: the worker's copy shrinks while the main thread's grows
      item[i] = undefined;
      texts.push(text);
      chars += text.length;
      if (chars >= PIECE_CHARS) {
        send();
        if (++sent % 8 === 0) collectIf(large);
        texts = [];
        chars = 0;
      }
    }
    send();
  }
  return fields;
}

const textOf = (source: ProgramSource) => {
  const text = source.text ?? decodeUtf8(source.bytes ?? new Uint8Array(), source.file);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};

/**
 * A document of at least this many bytes is large: its thread collects its heap between the
 * phases of reading it and after (the pool's `large`), giving back what the parse took.
 */
const LARGE_BYTES = 1024 * 1024;

export const isLarge = (source: ProgramSource) => (source.bytes?.length ?? source.text?.length ?? 0) >= LARGE_BYTES;

/**
 * A full collection of this thread's heap, where the pool exposes one (pool.ts), for a large
 * document: the text, the parse's garbage and the items already sent are given back before the
 * next phase grows the heap again. It pauses this thread only.
 */
const collectIf = (large: boolean) => large && (globalThis as { gc?: () => void }).gc?.();

/** The document's value alone: the text the loader keeps to place problems is garbage from here on. */
function documentValue(source: ProgramSource): unknown {
  const options = { file: source.file, format: source.format, limits: source.limits };
  return (source.bytes !== undefined ? loadProgramBytes(source.bytes, options) : loadProgramText(source.text ?? '', options)).value;
}

/** The handlers run in the worker threads (src/workers/tasks.ts). */
export const programDocumentTasks = {
  'program.load': (source: ProgramSource, emit: Emit): { outline: Outline; checked?: DocumentCheck } => {
    const large = isLarge(source);
    const value = documentValue(source);
    collectIf(large);
    const checked = source.check && precheckDocument(value, source.check.prune);
    collectIf(large);
    return { outline: inPieces(value, emit, large), checked };
  },
  'program.locate': (input: ProgramSource & { pointers: string[] }): Array<SourcePlace | undefined> => {
    const locate = textLocator(textOf(input), input.file, input.format);
    return input.pointers.map(locate);
  },
};
