// The main thread's side of reading a program document in a worker thread (program-document.ts,
// the worker's side): runs the task in the pool and puts the document back together from the
// pieces it sent, for the HTTP doors (PUT /v1/program, the console's POST /console/api/program).
import { ServiceError } from '../shared/errors.ts';
import { shareTheLoop } from '../shared/event-loop-turns.ts';
import { withPlaces, type SourcePlace } from '../formats/program/load.ts';
import type { DocumentCheck } from '../domain/program/precheck.ts';
import type { WorkerPool } from './pool.ts';
import { isLarge, type Outline, type Piece, type ProgramSource } from './program-document.ts';

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
  const { pieces, result } = await pool.run('program.load', source, { large: isLarge(source) });
  const { outline, checked } = result as { outline: Outline; checked?: DocumentCheck };
  const value = assemble(outline, await parsedLists(pieces as Piece[]));
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
        const input = { ...source, pointers: asked };
        places = (await pool.run('program.locate', input, { large: isLarge(source) })).result as typeof places;
      } catch {
        return error;
      }
      const byPointer = new Map(asked.map((pointer, i) => [pointer, places[i]]));
      return withPlaces(error, { value, files, locate: (pointer) => byPointer.get(pointer) });
    },
  };
}

/**
 * The lists of the pieces, each parsed and let go in turn, giving the loop a turn between them: the
 * port hands every piece over at once, and parsing 50 MiB of them in one go held the loop a second.
 */
async function parsedLists(pieces: Piece[]): Promise<Map<string, unknown[]>> {
  const lists = new Map<string, unknown[]>();
  for (let i = 0; i < pieces.length; i++) {
    const { key, json } = pieces[i];
    pieces[i] = undefined as never;
    const list = lists.get(key) ?? [];
    for (const item of JSON.parse(json) as unknown[]) list.push(item);
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
