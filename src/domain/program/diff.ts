// The diff phase of the program pipeline (pipeline.ts): each kind's entries against its current
// records, into the changes to write (created, updated, and with prune deleted) and the plan's
// counts and changes. A created record is not normalized here: the write phase does it a chunk at
// a time (write-changes.ts), so no kind's created entries are held all at once.
import { changedFields } from '../events/changes.ts';
import { sameData } from '../kinds/normalize.ts';
import type { CurrentRecord, KeyedEntry, NormalizeContext, ProgramKindName, RecordChange } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import type { KindCounts, PlannedChange } from './plan-schema.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import { unchangedCounts, type DocumentKinds } from './document-kinds.ts';
import type { CurrentRecords } from './read-kinds.ts';
import type { KeyBook } from '../kinds/keys.ts';

/** Each changed kind's changes, in the document's kind order. */
export type KindChanges = Map<ProgramKindName, RecordChange<KeyedEntry>[]>;

export interface Diff {
  counts: Record<string, KindCounts>;
  changes: KindChanges;
  planned: PlannedChange[];
}

/**
 * Diffs every present kind (a settled one counts as unchanged). `current` loses each kind as it is
 * diffed: what the diff keeps of the kind's current records is the changed ones' `before`.
 * `nctx.index` is left at the last entry normalized.
 */
export async function diffKinds(
  kinds: DocumentKinds,
  current: CurrentRecords,
  book: KeyBook,
  nctx: NormalizeContext,
  prune: boolean | undefined,
): Promise<Diff> {
  const diff: Diff = { counts: {}, changes: new Map(), planned: [] };
  for (const kind of kinds.present) {
    if (kinds.settled.has(kind.name)) {
      diff.counts[kind.name] = unchangedCounts(kinds, kind);
      continue;
    }
    const kindChanges: RecordChange<KeyedEntry>[] = [];
    const existing = current.get(kind.name)!;
    const { counts, listed } = await diffEntries(kind, kinds.entriesOf(kind), existing, book, nctx, kindChanges, diff.planned);
    if (prune) {
      for (const [key, record] of existing) {
        if (listed.has(key) || kind.protectFromPrune?.(record)) continue;
        kindChanges.push({ action: 'delete', key, id: record.id, before: record.entry });
        diff.planned.push({ kind: kind.name, key, id: kind.publicId?.(record.id, key) ?? record.id, action: 'delete' });
        counts.deleted += 1;
      }
    }
    diff.counts[kind.name] = counts;
    if (kindChanges.length > 0) diff.changes.set(kind.name, kindChanges);
    current.delete(kind.name);
  }
  return diff;
}

/** One kind's entries against its current records: creations and updates, and the keys listed. */
async function diffEntries(
  kind: ProgramKind,
  entries: readonly KeyedEntry[],
  existing: ReadonlyMap<string, CurrentRecord<KeyedEntry>>,
  book: KeyBook,
  nctx: NormalizeContext,
  kindChanges: RecordChange<KeyedEntry>[],
  planned: PlannedChange[],
): Promise<{ counts: KindCounts; listed: Set<string> }> {
  const counts: KindCounts = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
  const listed = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    await shareTheLoop();
    nctx.index = index;
    listed.add(entry.key);
    const was = existing.get(entry.key);
    if (!was) {
      // normalized when written, one kind at a time (materialize), not held for every kind at once
      const id = book.idOf(kind.record, entry.key);
      kindChanges.push({ action: 'create', key: entry.key, id, index });
      planned.push({ kind: kind.name, key: entry.key, id: kind.publicId?.(id, entry.key) ?? id, action: 'create' });
      counts.created += 1;
      continue;
    }
    const normalized = kind.normalize(entry, was.entry, nctx);
    if (sameData(normalized, was.entry)) {
      counts.unchanged += 1;
      continue;
    }
    const after = kind.stampChange ? kind.stampChange(normalized, entry, nctx) : normalized;
    kindChanges.push({ action: 'update', key: entry.key, id: was.id, before: was.entry, after, index });
    planned.push({
      kind: kind.name,
      key: entry.key,
      id: kind.publicId?.(was.id, entry.key) ?? was.id,
      action: 'update',
      fields: changedFields(was.entry, after),
    });
    counts.updated += 1;
  }
  return { counts, listed };
}
