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
  jsonInParts,
  loadProgramBytes,
  loadProgramText,
  textLocator,
  type ProgramFormat,
  type SourcePlace,
} from '../formats/program/load.ts';
import type { ProgramLimits } from '../shared/program-limits.ts';
import { DocumentChecker, isKindName, precheckDocument, type DocumentCheck } from '../domain/program/precheck.ts';
import { jsonItems, jsonMembers, type JsonMember } from '../formats/program/json.ts';
import type { ProgramKind } from '../domain/program/registry.ts';
import { movable, Transfer, type Emit } from './task-messages.ts';
import { packedFieldOf, packedReferences } from '../domain/program/packed-lists.ts';
import { programKind } from '../domain/program/registry.ts';
import type { KeyedEntry, ProgramKindName, Reference } from '../domain/kinds/kind.ts';

/**
 * About how many characters of JSON text one message carries back. The main thread parses a piece
 * without a turn of the loop: 1 MiB took it several milliseconds, each a wait for another
 * organization's statements (docs/decisions/performance.md, "Scanner files parsed in the worker
 * threads"). Smaller pieces cost memory instead (the port hands over every message waiting at
 * once): three plans of a 24 MiB JSON document grew the server +94-108 MiB at 256 KiB, as at
 * 1 MiB (+110-118), but +169-171 MiB at 128 KiB.
 */
const PIECE_CHARS = 256 * 1024;

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
 * piece's `bytes`, or with `inBody` of the body's own bytes; `references` are those the list holds.
 */
export interface PackedField {
  item: number;
  field: string;
  start: number;
  end: number;
  inBody?: boolean;
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

/** Where a packed field's text is in the body's bytes, when it is there as it is (a JSON body of ASCII). */
type BodyRange = (entryIndex: number, field: string) => [number, number] | undefined;

/**
 * Writes one top-level list as pieces: its items' JSON text, about PIECE_CHARS at a time, with
 * the packed fields of the kind's entries (when `pack`) taken out: their text in the piece's bytes,
 * or, where the body's bytes hold it as it is, their place there.
 */
class ListWriter {
  readonly #key: string;
  readonly #emit: Emit;
  readonly #large: boolean;
  readonly #kind: ProgramKind | undefined;
  readonly #inBody: BodyRange | undefined;
  #texts: string[] = [];
  #packedTexts: string[] = [];
  #packed: PackedField[] = [];
  #chars = 0;
  #sent = 0;

  constructor(key: string, emit: Emit, large: boolean, pack: boolean, inBody?: BodyRange) {
    this.#key = key;
    this.#emit = emit;
    this.#large = large;
    this.#kind = pack ? programKind(key as ProgramKindName) : undefined;
    this.#inBody = inBody;
  }

  /** The item at `index` of the list (plain data: the loader's guarantee). */
  add(index: number, entry: unknown): void {
    const key = this.#key;
    const field = this.#kind ? packedFieldOf(key, entry) : undefined;
    if (this.#kind && field) {
      const fields = entry as Record<string, unknown>;
      const references = packedReferences(this.#kind, entry as KeyedEntry, field, `/${key}/${index}`);
      const range = this.#inBody?.(index, field);
      if (range) {
        this.#packed.push({ item: this.#texts.length, field, start: range[0], end: range[1], inBody: true, references });
        this.#chars += range[1] - range[0];
      } else {
        const packedText = JSON.stringify(fields[field]);
        this.#packed.push({ item: this.#texts.length, field, start: this.#packedTexts.length, end: 0, references });
        this.#packedTexts.push(packedText);
        this.#chars += packedText.length;
      }
      // the field keeps its place among the entry's fields; its value comes from the bytes
      fields[field] = 0;
    }
    // an entry is never undefined, so never left out
    const text = JSON.stringify(entry) ?? 'null';
    this.#texts.push(text);
    this.#chars += text.length;
    if (this.#chars >= PIECE_CHARS) {
      this.flush();
      if (++this.#sent % 8 === 0) collectIf(this.#large);
    }
  }

  /** Sends what is left (a list with no item is sent too: the main thread finds it empty). */
  flush(): void {
    const piece: Piece = { key: this.#key, json: `[${this.#texts.join(',')}]` };
    if (this.#packed.length > 0) {
      const texts = this.#packedTexts;
      const buffer = texts.length > 0 ? new ArrayBuffer(texts.reduce((n, text) => n + Buffer.byteLength(text), 0)) : undefined;
      const encoder = new TextEncoder();
      let at = 0;
      for (const p of this.#packed) {
        if (p.inBody) continue;
        const text = texts[p.start];
        p.start = at;
        at += encoder.encodeInto(text, new Uint8Array(buffer!, at)).written;
        p.end = at;
      }
      if (buffer) piece.bytes = new Uint8Array(buffer);
      piece.packed = this.#packed;
    }
    this.#emit(piece, movable(piece.bytes));
    this.#texts = [];
    this.#packedTexts = [];
    this.#packed = [];
    this.#chars = 0;
  }
}

/** The document's top-level lists sent in pieces, let go as they are sent: the rest is its outline. */
function inPieces(value: unknown, emit: Emit, large: boolean, pack: boolean): Outline {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { whole: value };
  const fields: Outline & { fields: unknown[] } = { fields: [] };
  for (const [key, item] of Object.entries(value)) {
    if (!Array.isArray(item)) {
      fields.fields.push([key, item]);
      continue;
    }
    fields.fields.push([key]);
    const writer = new ListWriter(key, emit, large, pack);
    for (let i = 0; i < item.length; i++) {
      writer.add(i, item[i]);
      // sent, so let go: the worker's copy shrinks while the main thread's grows
      item[i] = undefined;
    }
    writer.flush();
  }
  return fields;
}

/**
 * A JSON body read, checked and sent an item of its top-level lists at a time (issue 36, goal (d)):
 * the document's value is never whole in this thread, only its text and the item at hand. The
 * answer is the one of the whole document's reading (loadProgramBytes, precheckDocument, inPieces):
 * undefined when the text is not laid out so (the caller reads it whole, which names the problem),
 * and a refusal of an item's text is the whole document's (read whole once more to name it).
 */
function jsonInItems(
  source: ProgramSource & { bytes: Uint8Array; check: { prune: boolean } },
  emit: Emit,
  large: boolean,
): { outline: Outline; checked: DocumentCheck } | undefined {
  const parts = jsonInParts(source.bytes, { file: source.file, limits: source.limits });
  if (!parts) return undefined;
  const { members } = parts;
  let text: string | undefined = parts.text;
  // the layout of every list first: nothing is sent for a text that must be read whole
  const lists = new Map<JsonMember, Array<[number, number]>>();
  for (const member of members) {
    if (text.charCodeAt(member.start) !== 0x5b /* [ */) continue;
    const items = jsonItems(text, member.start);
    if (!items) return undefined;
    lists.set(member, items);
  }
  // ASCII text: a character is a byte, so an item's text is in the body's bytes as it is, and so is
  // a packed field's. The whole text is then let go: each item is decoded from the bytes in turn.
  const ascii = text.length === source.bytes.length;
  const decoder = new TextDecoder();
  const textAt = (start: number, end: number) => (ascii ? decoder.decode(source.bytes.subarray(start, end)) : text!.slice(start, end));
  const parse = (itemText: string): unknown => {
    try {
      return JSON.parse(itemText);
    } catch {
      documentValue(source); // throws the refusal that names the problem
      throw new Error('a JSON document read whole where its parts were refused');
    }
  };
  const outline: Array<[string] | [string, unknown]> = [];
  const shape: Record<string, unknown> = {};
  for (const member of members) {
    const items = lists.get(member);
    const value = items ? new Array(items.length) : parse(textAt(member.start, member.end));
    Object.defineProperty(shape, member.key, { value, enumerable: true, writable: true, configurable: true });
    outline.push(items ? [member.key] : [member.key, value]);
  }
  if (ascii) {
    parts.text = '';
    text = undefined;
    collectIf(large);
  }
  const checker = new DocumentChecker(source.check.prune);
  checker.outline(shape);
  for (const member of members) {
    const items = lists.get(member);
    if (!items) continue;
    const name = member.key;
    let entryAt = 0;
    let itemText = '';
    let itemStart = 0;
    const inBody: BodyRange | undefined = ascii
      ? (_index, field) => {
          const found = jsonMembers(itemText, 0)?.members.find((m) => m.key === field);
          return found && [itemStart + found.start, itemStart + found.end];
        }
      : undefined;
    const writer = new ListWriter(name, emit, large, true, inBody);
    for (const [start, end] of items) {
      itemText = textAt(start, end);
      itemStart = start;
      const entry = parse(itemText);
      if (isKindName(name)) checker.entry(name, entryAt, entry);
      writer.add(entryAt++, entry);
    }
    writer.flush();
  }
  return { outline: { fields: outline }, checked: checker.finish() };
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
    const inItems =
      source.check && source.bytes && source.format === 'json'
        ? jsonInItems(source as Parameters<typeof jsonInItems>[0], emit, large)
        : undefined;
    let outline = inItems?.outline;
    let checked = inItems?.checked;
    if (!outline) {
      const value = documentValue(source);
      collectIf(large);
      checked = source.check && precheckDocument(value, source.check.prune);
      collectIf(large);
      outline = inPieces(value, emit, large, source.check !== undefined);
    }
    // The body's bytes go back to the main thread (transferred, as they came): they are its to
    // place problems with, the packed fields' text may be there, and it lets go of them once it
    // has answered.
    const loaded: ProgramLoaded = { outline, checked, bytes: source.bytes };
    return new Transfer(loaded, movable(source.bytes));
  },
  'program.locate': (input: ProgramSource & { pointers: string[] }): Array<SourcePlace | undefined> => {
    const locate = textLocator(textOf(input), input.file, input.format);
    return input.pointers.map(locate);
  },
};
