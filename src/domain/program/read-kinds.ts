// The read phase of the program pipeline (pipeline.ts), also used by the export (verbs.ts): the
// organization's keys, and its current records of the given kinds as document entries, in bulk.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import type { ProgramKeyRow } from '../../storage/db/repositories/program/program-keys.ts';
import { KeyBook, type IdDeriver } from '../kinds/keys.ts';
import type { CurrentRecord, KeyedEntry, ProgramKindName } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import { PROGRAM_KINDS } from './registry.ts';

/** Each kind's current records by their key. */
export type CurrentRecords = Map<ProgramKindName, Map<string, CurrentRecord<KeyedEntry>>>;

export function keyBookFor(organizationId: string, rows: readonly ProgramKeyRow[]): KeyBook {
  const derivers = new Map<string, IdDeriver>();
  for (const kind of PROGRAM_KINDS) if (kind.deriveId) derivers.set(kind.record, kind.deriveId);
  return new KeyBook(organizationId, rows, derivers);
}

/** Reads the given kinds' current records into `current`, registering their keys. */
export async function readKinds(
  trx: Kysely<Database>,
  organizationId: string,
  book: KeyBook,
  kinds: readonly ProgramKind[],
): Promise<CurrentRecords> {
  const current: CurrentRecords = new Map();
  for (const kind of kinds) {
    const records = await kind.read({ q: trx, organizationId, keys: book });
    const byKey = new Map<string, CurrentRecord<KeyedEntry>>();
    for (const record of records) {
      byKey.set(record.entry.key, record);
      book.register(kind.record, record.entry.key, record.id);
    }
    current.set(kind.name, byKey);
  }
  return current;
}
