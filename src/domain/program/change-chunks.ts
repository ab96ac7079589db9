// How the write and events phases of the program pipeline (write-changes.ts, pipeline-events.ts)
// hold created records: a created record's normalized entry exists only while its chunk is
// checked, written or shown in events. The document's entries are the one copy of the program held
// throughout, and a chunk's copies are garbage before the next chunk's are made.
import type { KeyedEntry, NormalizeContext, RecordChange } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import type { DocumentKinds } from './document-kinds.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import { packedBytes } from '../kinds/packed-fields.ts';

/**
 * Changes of a kind checked, written and shown in their kind's own events this many at a time: a
 * created record's normalized entry lives only as long as its chunk, never a whole kind's at once.
 * Not smaller: each chunk's link rows are bulk statements of their own length, which SQLite compiles
 * anew (bench/program-apply.ts: 500 made the SQLite apply 7 % slower, 2,000 does not).
 */
export const CHANGE_CHUNK = 2000;

/**
 * And at most this much packed text (packed-lists.ts) of created entries a chunk: 2,000 tests of
 * up to 10,000 flagged resources each, normalized at once, held every resource of a 50 MiB
 * document at once on the event loop's heap (issue 36, goal (d)).
 */
export const CHUNK_PACKED_BYTES = 4 * 1024 * 1024;

export interface CreatedEntries {
  /** `changes` in chunks of at most CHANGE_CHUNK changes and CHUNK_PACKED_BYTES of created entries' packed text */
  chunks(kind: ProgramKind, changes: readonly RecordChange<KeyedEntry>[]): Generator<RecordChange<KeyedEntry>[]>;
  /** a change's entry as written: a created record's normalized anew when it is not held */
  entryOf(kind: ProgramKind, change: RecordChange<KeyedEntry>): KeyedEntry;
  /** normalizes the chunk's created records and holds them in `after` */
  materialize(kind: ProgramKind, chunk: readonly RecordChange<KeyedEntry>[]): Promise<void>;
  /** lets the chunk's created entries go */
  release(chunk: readonly RecordChange<KeyedEntry>[]): void;
}

export function createdEntries(kinds: DocumentKinds, nctx: NormalizeContext): CreatedEntries {
  const entryOf = (kind: ProgramKind, c: RecordChange<KeyedEntry>): KeyedEntry =>
    c.after ?? kind.normalize(kinds.entriesOf(kind)[c.index!], undefined, { ...nctx, index: c.index! });
  return {
    entryOf,
    *chunks(kind, changes) {
      let chunk: RecordChange<KeyedEntry>[] = [];
      let bytes = 0;
      for (const c of changes) {
        const size = c.action === 'create' && c.after === undefined ? packedBytes(kinds.entriesOf(kind)[c.index!]) : 0;
        if (chunk.length >= CHANGE_CHUNK || (chunk.length > 0 && bytes + size > CHUNK_PACKED_BYTES)) {
          yield chunk;
          chunk = [];
          bytes = 0;
        }
        chunk.push(c);
        bytes += size;
      }
      if (chunk.length > 0) yield chunk;
    },
    // a turn between entries: a chunk of tests with 10,000 resources each is seconds of normalizing
    async materialize(kind, chunk) {
      for (const c of chunk)
        if (c.action === 'create' && c.after === undefined) {
          c.after = entryOf(kind, c);
          await shareTheLoop();
        }
    },
    release(chunk) {
      for (const c of chunk) if (c.action === 'create') c.after = undefined;
    },
  };
}
