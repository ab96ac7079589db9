// Entities in a program document (issue 25): name only; frameworks, controls and artifacts name
// them by key. Deleting one (prune) unlinks it from every record.
import type { ProgramKind } from '../program/kind.ts';
import { ProgramEntity } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';

export const entitiesKind: ProgramKind<ProgramEntity> = {
  name: 'entities',
  record: 'entity',
  resources: ['control'],
  dataKinds: ['controls'],
  schema: ProgramEntity,
  async read({ q, organizationId, keys }) {
    const rows = await selectAll(q, 'entities', organizationId, ['name', 'id']);
    return rows.map((r) => ({ id: r.id, entry: { key: keys.keyOf('entity', r.id), name: r.name } }));
  },
  normalize: (entry) => ({ key: entry.key, name: entry.name }),
  references: () => [],
  async write({ db, trx, organizationId: org }, changes) {
    await insertRows(
      db,
      trx,
      'entities',
      changes.filter((c) => c.action === 'create').map((c) => ({ id: c.id, organization_id: org, name: c.after!.name })),
    );
    for (const c of changes) if (c.action === 'update') await updateRow(trx, 'entities', org, c.id, { name: c.after!.name });
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);
    if (deleted.length > 0) {
      await deleteWhereIn(trx, 'subject_entities', org, 'entity_id', deleted);
      await deleteWhereIn(trx, 'entities', org, 'id', deleted);
    }
  },
};
