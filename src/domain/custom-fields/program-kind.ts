// Custom field definitions in a program document (issue 25). Findings carry values of them
// (the vulnerabilities kind); deleting a definition (prune) deletes its values.
import type { ProgramKind } from '../kinds/kind.ts';
import { ProgramCustomField } from './program-schema.ts';
import { selectAll } from '../../storage/db/repositories/program/program-writes.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';

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
  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'custom_fields',
      columns: (e) => columns(e as Stored),
      dependents: [['custom_field_values', 'custom_field_id']],
    }),
};
