// Keys and IDs of a program's records (issue 25). A document names records by keys; the stored
// rows have IDs. The rules, one place:
// - A record an apply creates gets an ID derived from the organization, its record kind and its
//   key (a name-based UUID, or the kind's own form: tests are `test_<slug>_<tag>`), so the same
//   document applied twice, or to two organizations, never makes two records or collides; the key
//   is kept in `program_keys` so an export gives the author's key back.
// - A record made another way (the demo, the API) has no key row: it exports with its ID as its
//   key, and that key addresses the same record when applied to the same organization.
// - Resolution of a key: the organization's current record exported under that key, else the
//   derived ID (a record the document creates).
import { uuidV5 } from '../../shared/uuid-v5.ts';
import type { ProgramKeyRow } from '../../storage/db/repositories/program/program-keys.ts';

/** The namespace of program record IDs (a random UUID fixed here: changing it changes every derived ID). */
export const PROGRAM_ID_NAMESPACE = '3d6f9b1e-54a2-4c1f-9a6e-2b8d7c0e4f15';

/** The record ID an apply gives a new record of `recordKind` named `key` in the organization. */
export function derivedRecordId(organizationId: string, recordKind: string, key: string): string {
  return uuidV5(PROGRAM_ID_NAMESPACE, `${organizationId}\u0000${recordKind}\u0000${key}`);
}

/** A requirement's key as one string: its framework's key, `/`, its own (keys hold no `/`). */
export const requirementRef = (frameworkKey: string, requirementKey: string) => `${frameworkKey}/${requirementKey}`;

export type IdDeriver = (organizationId: string, key: string) => string;

/**
 * The keys of one organization's records, for one plan, apply or export: the stored key rows, the
 * current records by their exported key, and the keys an apply must store.
 */
export class KeyBook {
  readonly organizationId: string;
  private readonly keyById = new Map<string, Map<string, string>>();
  private readonly idByKey = new Map<string, Map<string, string>>();
  private readonly registeredKeyById = new Map<string, Map<string, string>>();
  /** derived IDs already computed (a hash each): a key is resolved several times in one run */
  private readonly derivedByKey = new Map<string, Map<string, string>>();
  private readonly derivers: ReadonlyMap<string, IdDeriver>;

  constructor(organizationId: string, rows: readonly ProgramKeyRow[], derivers: ReadonlyMap<string, IdDeriver> = new Map()) {
    this.organizationId = organizationId;
    this.derivers = derivers;
    for (const row of rows) this.mapOf(this.keyById, row.kind).set(row.recordId, row.key);
  }

  private mapOf(maps: Map<string, Map<string, string>>, kind: string): Map<string, string> {
    let map = maps.get(kind);
    if (!map) maps.set(kind, (map = new Map()));
    return map;
  }

  /** The key a record exports with: its stored key, or its ID. */
  keyOf(recordKind: string, id: string): string {
    return this.keyById.get(recordKind)?.get(id) ?? id;
  }

  /** The stored key of a record, if an apply named it. */
  storedKeyOf(recordKind: string, id: string): string | undefined {
    return this.keyById.get(recordKind)?.get(id);
  }

  /** Notes a current record of the organization under the key it exports with. */
  register(recordKind: string, key: string, id: string): void {
    this.mapOf(this.idByKey, recordKind).set(key, id);
    this.mapOf(this.registeredKeyById, recordKind).set(id, key);
  }

  /** The key a current record was registered under (read this run): a requirement's `<framework>/<requirement>`. */
  registeredKeyOf(recordKind: string, id: string): string | undefined {
    return this.registeredKeyById.get(recordKind)?.get(id);
  }

  /** Whether the organization has a record of the kind exported under `key`. */
  exists(recordKind: string, key: string): boolean {
    return this.idByKey.get(recordKind)?.has(key) ?? false;
  }

  /** The ID a key names: the current record's, or the one an apply gives the record it creates. */
  idOf(recordKind: string, key: string): string {
    const current = this.idByKey.get(recordKind)?.get(key);
    if (current !== undefined) return current;
    const derived = this.mapOf(this.derivedByKey, recordKind);
    let id = derived.get(key);
    if (id === undefined) {
      const derive = this.derivers.get(recordKind);
      id = derive ? derive(this.organizationId, key) : derivedRecordId(this.organizationId, recordKind, key);
      derived.set(key, id);
    }
    return id;
  }

  /** The key rows to store for records created under `keys` (none where the key is the ID itself). */
  newKeyRows(recordKind: string, keys: Iterable<string>): ProgramKeyRow[] {
    const rows: ProgramKeyRow[] = [];
    for (const key of keys) {
      const recordId = this.idOf(recordKind, key);
      if (recordId !== key) rows.push({ kind: recordKind, key, recordId });
    }
    return rows;
  }
}
