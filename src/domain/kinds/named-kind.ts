// A kind whose records are a name and nothing else (entities, risks): other kinds name them by
// key, and deleting one (prune) unlinks it from every record. One kind, parameterised by its
// names and the link table that points at it.
import { Type, type Static } from 'typebox';
import type { TableName } from '../../storage/db/bulk-insert.ts';
import { selectAll } from '../../storage/db/repositories/program/program-writes.ts';
import { Name, RecordKey } from './fields.ts';
import type { ProgramKind, ProgramKindName } from './kind.ts';
import { writeRowsAndLinks } from './row-writer.ts';

export const ProgramNamedRecord = Type.Object({ key: RecordKey, name: Name() }, { additionalProperties: false });
export type ProgramNamedRecord = Static<typeof ProgramNamedRecord>;

export function namedKind(names: {
  name: ProgramKindName;
  record: string;
  table: 'entities' | 'risks';
  /** the link rows naming a record: deleted with it */
  linkedFrom: readonly [TableName, string];
}): ProgramKind<ProgramNamedRecord> {
  const { name, record, table } = names;
  return {
    name,
    record,
    resources: ['control'],
    dataKinds: ['controls'],
    schema: ProgramNamedRecord,
    async read({ q, organizationId, keys }) {
      const rows = await selectAll(q, table, organizationId, ['name', 'id']);
      return rows.map((r) => ({ id: r.id, entry: { key: keys.keyOf(record, r.id), name: r.name } }));
    },
    normalize: (entry) => ({ key: entry.key, name: entry.name }),
    references: () => [],
    write: (w, changes) => writeRowsAndLinks(w, changes, { table, columns: (e) => ({ name: e.name }), dependents: [names.linkedFrom] }),
  };
}
