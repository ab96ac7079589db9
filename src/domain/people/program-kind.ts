// People in a program document (issue 25): assignees, approvers and every person stamp name them
// by key. The service's actor people (actor-stamp.ts) export like any other person and are never
// pruned (they stamp changes the document does not describe). Deleting a person (prune) removes
// their assignments and clears the stamps naming them.
import type { ProgramKind } from '../kinds/kind.ts';
import { ProgramPerson } from './program-schema.ts';
import { isActorPerson } from './actor-stamp.ts';
import { clearWhereIn, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import type { TableName } from '../../storage/db/bulk-insert.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';

/** Every column that stamps a person. */
const STAMP_COLUMNS: ReadonlyArray<[TableName, string]> = [
  ['frameworks', 'added_by'],
  ['frameworks', 'last_modified_by'],
  ['controls', 'added_by'],
  ['controls', 'last_modified_by'],
  ['controls', 'marked_out_of_scope_by'],
  ['policies', 'added_by'],
  ['policies', 'last_modified_by'],
  ['policies', 'published_by'],
  ['policy_documents', 'added_by'],
  ['policy_documents', 'updated_by'],
  ['policy_versions', 'published_by'],
  ['evidence', 'added_by'],
  ['evidence', 'last_modified_by'],
  ['evidence', 'revision_requested_by'],
  ['attachments', 'added_by'],
  ['attachments', 'updated_by'],
  ['vulnerabilities', 'added_by'],
  ['vulnerabilities', 'last_modified_by'],
];

export const peopleKind: ProgramKind<ProgramPerson> = {
  name: 'people',
  record: 'person',
  resources: ['control'],
  dataKinds: ['controls', 'policies', 'evidence', 'tests', 'vulnerabilities'],
  schema: ProgramPerson,
  async read({ q, organizationId, keys }) {
    const rows = await selectAll(q, 'people', organizationId, ['name', 'id']);
    return rows.map((r) => ({ id: r.id, entry: { key: keys.keyOf('person', r.id), name: r.name, email: r.email } }));
  },
  normalize: (entry) => ({ key: entry.key, name: entry.name, email: entry.email }),
  references: () => [],
  checkAll(entries, current, issues) {
    // Emails are unique among the organization's people: the document's and those it does not list.
    const owner = new Map<string, string>();
    for (const [key, record] of current) owner.set(record.entry.email.toLowerCase(), key);
    const listed = new Set(entries.map((e) => e.key));
    for (const [email, key] of owner) if (listed.has(key)) owner.delete(email);
    entries.forEach((entry, i) => {
      const email = entry.email.toLowerCase();
      const other = owner.get(email);
      if (other !== undefined && other !== entry.key)
        issues.add(`/people/${i}/email`, `is also the email of the person "${other}"; each person needs their own`);
      else owner.set(email, entry.key);
    });
  },
  protectFromPrune: (record) => isActorPerson(record.id),
  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'people',
      columns: (e) => ({ name: e.name, email: e.email }),
      // Emails are unique: people trading emails in one apply first let go of theirs.
      async beforeUpdates({ trx, organizationId: org }, updated) {
        const moving = updated.filter((c) => c.before!.email !== c.after!.email);
        for (const c of moving) await updateRow(trx, 'people', org, c.id, { email: `${c.id}@moving.invalid` });
      },
      dependents: [['subject_people', 'person_id']],
      async childrenOfDeleted({ trx, organizationId: org }, ids) {
        for (const [table, column] of STAMP_COLUMNS) await clearWhereIn(trx, table, org, column, ids);
      },
    }),
};
