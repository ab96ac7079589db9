// The main thread's side of reading a program document in a worker thread (program-document.ts,
// the worker's side): runs the task in the pool and puts the document back together from the
// pieces it sent, for the HTTP doors (PUT /v1/program, the console's POST /console/api/program).
import { ServiceError } from '../shared/errors.ts';
import { shareTheLoop } from '../shared/event-loop-turns.ts';
import { withPlaces, type SourcePlace } from '../formats/program/load.ts';
import type { DocumentCheck } from '../domain/program/precheck.ts';
import type { WorkerPool } from './pool.ts';
import { isLarge, type Outline, type Piece, type ProgramLoaded, type ProgramSource } from './program-document.ts';
import { movable } from './task-messages.ts';
import { unpackOnDemand } from '../domain/kinds/packed-fields.ts';

/** A document read in the pool. */
export interface PooledProgram {
  value: unknown;
  /** what the worker's checks found, when the source asked for them (ProgramInput.checked) */
  checked?: DocumentCheck;
  /** `error` with the place of each of its problems added, as load.ts's withPlaces does */
  withPlaces(error: unknown): Promise<unknown>;
  /**
   * Frees the memory of the body's bytes and of the packed fields (packed-lists.ts) at once, not
   * at the next full collection: called once the answer is made, after which the document's
   * packed fields can no longer be read.
   */
  release(): void;
}

/**
 * Reads a document in a worker thread; throws the loader's `validation_failed` when it refuses it.
 * The source's bytes move to the thread (a plain ArrayBuffer is transferred, so `source.bytes` is
 * empty afterwards) and come back with the answer.
 */
export async function loadProgramInPool(pool: WorkerPool, source: ProgramSource): Promise<PooledProgram> {
  const large = isLarge(source);
  const { pieces, result } = await pool.run('program.load', source, { large, transfer: movable(source.bytes) });
  const { value, checked, bytes, buffers } = await documentOf(result as ProgramLoaded, pieces as Piece[]);
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
        // the bytes are copied to the thread this time: they are released with the rest
        const input = { ...source, bytes, pointers: asked };
        places = (await pool.run('program.locate', input, { large })).result as typeof places;
      } catch {
        return error;
      }
      const byPointer = new Map(asked.map((pointer, i) => [pointer, places[i]]));
      return withPlaces(error, { value, files, locate: (pointer) => byPointer.get(pointer) });
    },
    release() {
      for (const buffer of buffers.splice(0)) if (!buffer.detached) buffer.transfer(0);
    },
  };
}

/**
 * The document `program.load` answered, put back together from its pieces: `buffers` are the
 * memory it holds outside the heap (the body's bytes, the packed fields' text), to be released.
 */
export async function documentOf(
  loaded: ProgramLoaded,
  pieces: Piece[],
): Promise<{ value: unknown; checked?: DocumentCheck; bytes?: Uint8Array; buffers: ArrayBuffer[] }> {
  const buffers: ArrayBuffer[] = movable(loaded.bytes);
  const value = assemble(loaded.outline, await parsedLists(pieces, buffers, loaded.bytes));
  return { value, checked: loaded.checked, bytes: loaded.bytes, buffers };
}

/**
 * The lists of the pieces, each parsed and let go in turn, giving the loop a turn between them: the
 * port hands every piece over at once, and parsing 50 MiB of them in one go held the loop a second.
 * A piece's packed fields are read on demand (packed-lists.ts) from its bytes or the body's;
 * `buffers` gets the pieces' buffers, to be released.
 */
async function parsedLists(pieces: Piece[], buffers: ArrayBuffer[], body: Uint8Array | undefined): Promise<Map<string, unknown[]>> {
  const lists = new Map<string, unknown[]>();
  const decoder = new TextDecoder();
  for (let i = 0; i < pieces.length; i++) {
    const { key, json, bytes, packed } = pieces[i];
    pieces[i] = undefined as never;
    const list = lists.get(key) ?? [];
    const items = JSON.parse(json) as object[];
    if (bytes) buffers.push(...movable(bytes));
    for (const p of packed ?? []) {
      const text = (p.inBody ? body : bytes)!.subarray(p.start, p.end);
      unpackOnDemand(items[p.item], p.field, () => JSON.parse(decoder.decode(text)), p.references, text.length);
    }
    for (const item of items) list.push(item);
    lists.set(key, list);
    await shareTheLoop();
  }
  return lists;
}

function assemble(outline: Outline, lists: ReadonlyMap<string, unknown[]>): unknown {
  if ('whole' in outline) return outline.whole;
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
