// Risks in a program document (issue 25): name only; controls and artifacts name them by key.
// Deleting one (prune) unlinks it from every record.
import type { ProgramKind } from '../program/kind.ts';
import { ProgramRisk } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';

export const risksKind: ProgramKind<ProgramRisk> = {
  name: 'risks',
  record: 'risk',
  resources: ['control'],
  dataKinds: ['controls'],
  schema: ProgramRisk,
  async read({ q, organizationId, keys }) {
    const rows = await selectAll(q, 'risks', organizationId, ['name', 'id']);
    return rows.map((r) => ({ id: r.id, entry: { key: keys.keyOf('risk', r.id), name: r.name } }));
  },
  normalize: (entry) => ({ key: entry.key, name: entry.name }),
  references: () => [],
  async write({ db, trx, organizationId: org }, changes) {
    await insertRows(
      db,
      trx,
      'risks',
      changes.filter((c) => c.action === 'create').map((c) => ({ id: c.id, organization_id: org, name: c.after!.name })),
    );
    for (const c of changes) if (c.action === 'update') await updateRow(trx, 'risks', org, c.id, { name: c.after!.name });
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);
    if (deleted.length > 0) {
      await deleteWhereIn(trx, 'risk_links', org, 'risk_id', deleted);
      await deleteWhereIn(trx, 'risks', org, 'id', deleted);
    }
  },
};
