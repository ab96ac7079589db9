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
import { movable, Transfer, type Emit } from './task-messages.ts';
import { packedFieldOf, packedReferences } from '../domain/program/packed-lists.ts';
import { programKind } from '../domain/program/registry.ts';
import type { ProgramKindName, Reference } from '../domain/kinds/kind.ts';

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
/**
 * An entry's field held packed (src/domain/program/packed-lists.ts): the item at `item` of the
 * piece holds a placeholder in `field`, whose value is the JSON text at `start`..`end` of the
 * piece's `bytes`; `references` are those the list holds.
 */
export interface PackedField {
  item: number;
  field: string;
  start: number;
  end: number;
  references: Reference[];
}
/** Items of the top-level list `key`: `json` is the JSON text of a list of them. */
export interface Piece {
  key: string;
  json: string;
  /** the UTF-8 JSON text of the items' packed fields, transferred (not copied) to the main thread */
  bytes?: Uint8Array;
  packed?: PackedField[];
}

function inPieces(value: unknown, emit: Emit, large: boolean, pack: boolean): Outline {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { whole: value };
  const fields: Outline & { fields: unknown[] } = { fields: [] };
  for (const [key, item] of Object.entries(value)) {
    if (!Array.isArray(item)) {
      fields.fields.push([key, item]);
      continue;
    }
    fields.fields.push([key]);
    const kind = pack ? programKind(key as ProgramKindName) : undefined;
    let texts: string[] = [];
    let packedTexts: string[] = [];
    let packed: PackedField[] = [];
    let chars = 0;
    let sent = 0;
    const send = () => {
      const piece: Piece = { key, json: `[${texts.join(',')}]` };
      if (packed.length > 0) {
        const buffer = new ArrayBuffer(packedTexts.reduce((n, text) => n + Buffer.byteLength(text), 0));
        const encoder = new TextEncoder();
        let at = 0;
        packedTexts.forEach((text, i) => {
          packed[i].start = at;
          at += encoder.encodeInto(text, new Uint8Array(buffer, at)).written;
          packed[i].end = at;
        });
        piece.bytes = new Uint8Array(buffer);
        piece.packed = packed;
      }
      emit(piece, movable(piece.bytes));
    };
    for (let i = 0; i < item.length; i++) {
      const entry = item[i];
      const field = kind ? packedFieldOf(key, entry) : undefined;
      if (kind && field) {
        const packedText = JSON.stringify(entry[field]);
        packed.push({
          item: texts.length,
          field,
          start: 0,
          end: 0,
          references: packedReferences(kind, entry, field, `/${key}/${i}`),
        });
        packedTexts.push(packedText);
        chars += packedText.length;
        // the field keeps its place among the entry's fields; its value comes from the bytes
        entry[field] = 0;
      }
      // plain data (the loader's guarantee): an entry is never undefined, so never left out
      const text = JSON.stringify(entry) ?? 'null';
      // sent, so let go: the worker's copy shrinks while the main thread's grows
      item[i] = undefined;
      texts.push(text);
      chars += text.length;
      if (chars >= PIECE_CHARS) {
        send();
        if (++sent % 8 === 0) collectIf(large);
        texts = [];
        packedTexts = [];
        packed = [];
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

/** What `program.load` answers besides its pieces. */
export interface ProgramLoaded {
  outline: Outline;
  checked?: DocumentCheck;
  /** the source's bytes, back from the worker thread */
  bytes?: Uint8Array;
}

/** The handlers run in the worker threads (src/workers/tasks.ts). */
export const programDocumentTasks = {
  'program.load': (source: ProgramSource, emit: Emit) => {
    const large = isLarge(source);
    const value = documentValue(source);
    collectIf(large);
    const checked = source.check && precheckDocument(value, source.check.prune);
    collectIf(large);
    const outline = inPieces(value, emit, large, source.check !== undefined);
    // The body's bytes go back to the main thread (transferred, as they came): they are its to
    // place problems with and to let go of once it has answered.
    const loaded: ProgramLoaded = { outline, checked, bytes: source.bytes };
    return new Transfer(loaded, movable(source.bytes));
  },
  'program.locate': (input: ProgramSource & { pointers: string[] }): Array<SourcePlace | undefined> => {
    const locate = textLocator(textOf(input), input.file, input.format);
    return input.pointers.map(locate);
  },
};
