// The resolve phase of the program pipeline (pipeline.ts): the keys the document names, the kinds
// that must be read so its references resolve to the records' IDs (read-kinds.ts), and then every
// reference checked against the document's keys and the organization's. Throws validation_failed.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import type { KeyBook } from '../kinds/keys.ts';
import type { ProgramKindName } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import { PROGRAM_KINDS } from './registry.ts';
import { IssueList } from './validate.ts';
import { readKinds, type CurrentRecords } from './read-kinds.ts';
import type { DocumentKinds } from './document-kinds.ts';
import { referencesOf } from './packed-lists.ts';

/** Keys the document itself names, per record kind (its entries' and their own sub-records'). */
type DocumentKeys = Map<string, Set<string>>;

/**
 * Reads the current records the document's kinds need (their own, the kinds they reference or
 * need) and checks the references: the records it read, for the diff.
 */
export async function resolveReferences(
  trx: Kysely<Database>,
  organizationId: string,
  book: KeyBook,
  kinds: DocumentKinds,
  prune: boolean | undefined,
): Promise<CurrentRecords> {
  const { documentKeys, referenced } = namedKeys(kinds);
  const needed = new Set<ProgramKindName>();
  for (const k of kinds.active) for (const n of k.needs ?? []) needed.add(n);
  const owners = (k: ProgramKind) => {
    if (kinds.active.includes(k) || referenced.has(k.record) || needed.has(k.name)) return true;
    // requirements are read with their frameworks
    return k.name === 'frameworks' && referenced.has('requirement');
  };
  const current = await readKinds(trx, organizationId, book, PROGRAM_KINDS.filter(owners));
  const issues = new IssueList();
  checkReferences(kinds, documentKeys, book, prune, issues);
  for (const kind of kinds.active) kind.checkAll?.(kinds.entriesOf(kind), current.get(kind.name)!, issues);
  issues.throwIfAny();
  return current;
}

/**
 * Keys the document itself names, per record kind, and the record kinds the kinds that are not
 * settled reference: read, so their keys resolve to the records' IDs. A settled kind's references
 * to other kinds are checked only where those kinds are read; to a kind that is settled too or not
 * in the document, they hold as they did.
 */
function namedKeys(kinds: DocumentKinds): { documentKeys: DocumentKeys; referenced: Set<string> } {
  const documentKeys: DocumentKeys = new Map();
  const addKey = (record: string, key: string) => {
    let set = documentKeys.get(record);
    if (!set) documentKeys.set(record, (set = new Set()));
    set.add(key);
  };
  const referenced = new Set<string>();
  for (const kind of kinds.present) {
    const isActive = !kinds.settled.has(kind.name);
    kinds.entriesOf(kind).forEach((entry, i) => {
      addKey(kind.record, entry.key);
      for (const own of kind.ownKeys?.(entry) ?? []) addKey(own.record, own.key);
      if (isActive) for (const ref of referencesOf(kind, entry, `/${kind.name}/${i}`)) referenced.add(ref.record);
    });
  }
  return { documentKeys, referenced };
}

/** References: to a key of the document or of the organization. */
function checkReferences(
  kinds: DocumentKinds,
  documentKeys: DocumentKeys,
  book: KeyBook,
  prune: boolean | undefined,
  issues: IssueList,
): void {
  const presentRecords = new Set(kinds.present.map((k) => k.record));
  const activeRecords = new Set(kinds.active.map((k) => k.record));
  for (const kind of kinds.present) {
    const entries = kinds.entriesOf(kind);
    const isSettled = kinds.settled.has(kind.name);
    for (let i = 0; i < entries.length && !issues.full(); i++) {
      for (const ref of referencesOf(kind, entries[i], `/${kind.name}/${i}`)) {
        if (documentKeys.get(ref.record)?.has(ref.key)) continue;
        // a settled kind's reference can have been broken only by a kind this document changes
        if (isSettled && !activeRecords.has(ref.record) && !(ref.record === 'requirement' && activeRecords.has('framework'))) continue;
        // A framework the document lists has the document's requirements only; with prune, a
        // kind the document lists has the document's records only.
        const owner = ref.record === 'requirement' ? ref.key.slice(0, ref.key.indexOf('/')) : undefined;
        if (owner !== undefined && documentKeys.get('framework')?.has(owner)) {
          issues.add(ref.pointer, `names the requirement "${ref.key}", which its framework in the document does not list`);
          continue;
        }
        if (prune && presentRecords.has(ref.record)) {
          issues.add(ref.pointer, `names the ${ref.record} "${ref.key}", which the document does not list (prune would delete it)`);
          continue;
        }
        if (book.exists(ref.record, ref.key)) continue;
        issues.add(ref.pointer, `names the ${ref.record} "${ref.key}", which is neither in the document nor in the organization`);
      }
    }
  }
}
