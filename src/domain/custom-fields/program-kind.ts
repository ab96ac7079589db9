// Custom field definitions in a program document (issue 25). Findings carry values of them
// (the vulnerabilities kind); deleting a definition (prune) deletes its values.
import type { ProgramKind } from '../program/kind.ts';
import { ProgramCustomField } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';

type Stored = Required<ProgramCustomField>;

const columns = (e: Stored) => ({
  resource_type: e.resourceType,
  title: e.title,
  field_type: e.fieldType,
  options: JSON.stringify(e.options),
  position: e.position,
});

export const customFieldsKind: ProgramKind<ProgramCustomField> = {
  name: 'customFields',
  record: 'customField',
  resources: ['vulnerability'],
  dataKinds: ['controls', 'vulnerabilities'],
  schema: ProgramCustomField,
  async read({ q, organizationId, keys }) {
    const rows = await selectAll(q, 'custom_fields', organizationId, ['resource_type', 'position', 'id']);
    return rows.map((r) => ({
      id: r.id,
      entry: {
        key: keys.keyOf('customField', r.id),
        resourceType: r.resource_type as Stored['resourceType'],
        title: r.title,
        fieldType: r.field_type as Stored['fieldType'],
        options: JSON.parse(r.options) as string[],
        position: Number(r.position),
      },
    }));
  },
  normalize: (entry, current, ctx): Stored => ({
    key: entry.key,
    resourceType: entry.resourceType,
    title: entry.title,
    fieldType: entry.fieldType,
    options: entry.options ?? [],
    position: entry.position ?? current?.position ?? ctx.index,
  }),
  check(entry, pointer, issues) {
    if (entry.fieldType === 'dropdown' && (entry.options ?? []).length === 0)
      issues.push({ field: `${pointer}/options`, message: 'a dropdown needs at least one option' });
    if (entry.fieldType === 'text_box' && (entry.options ?? []).length > 0)
      issues.push({ field: `${pointer}/options`, message: 'a text_box has no options' });
  },
  references: () => [],
  async write({ db, trx, organizationId: org }, changes) {
    await insertRows(
      db,
      trx,
      'custom_fields',
      changes.filter((c) => c.action === 'create').map((c) => ({ id: c.id, organization_id: org, ...columns(c.after as Stored) })),
    );
    for (const c of changes) if (c.action === 'update') await updateRow(trx, 'custom_fields', org, c.id, columns(c.after as Stored));
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);
    if (deleted.length > 0) {
      await deleteWhereIn(trx, 'custom_field_values', org, 'custom_field_id', deleted);
      await deleteWhereIn(trx, 'custom_fields', org, 'id', deleted);
    }
  },
};
