// Frameworks and their requirements in a program document (issue 25). A requirement's key is its
// framework's key, `/`, its own (program-schema.ts): controls and artifacts reference requirements
// that way. A framework's requirements are its list: an apply creates, updates and deletes them
// to match (a requirement deleted takes its mappings with it), in the document's order.
import type { CurrentRecord, ProgramKind, RecordChange, WriteContext } from '../kinds/kind.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import { ProgramFramework } from './program-schema.ts';
import { changesAny, createdStamps, mergeEntry, sorted, stampModified } from '../kinds/normalize.ts';
import { requirementRef } from '../kinds/keys.ts';
import { deleteWhereIn, insertRows, selectAll, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import { entitiesBySubject } from '../../storage/db/repositories/program/program-links.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';
import { deleteProgramKeys } from '../../storage/db/repositories/program/program-keys.ts';

const FIELDS = [
  'name',
  'requirements',
  'entities',
  'nextAuditDate',
  'tscSelections',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const satisfies readonly (keyof ProgramFramework)[];

/** The part of a requirement's stored key after its framework's. */
const ownPart = (ref: string) => ref.slice(ref.indexOf('/') + 1);

function frameworkColumns(e: ProgramFramework, w: WriteContext) {
  const person = (key: string | null | undefined) => (key == null ? null : w.keys.idOf('person', key));
  return {
    name: e.name,
    next_audit_date: e.nextAuditDate ?? null,
    tsc_selections: JSON.stringify(e.tscSelections ?? []),
    added_by: person(e.addedBy),
    added_on: e.addedOn ?? w.now,
    last_modified_by: person(e.lastModifiedBy),
    modified_on: e.modifiedOn ?? null,
  };
}

export const frameworksKind: ProgramKind<ProgramFramework> = {
  name: 'frameworks',
  record: 'framework',
  resources: ['framework'],
  dataKinds: ['controls'],
  schema: ProgramFramework,

  async read({ q, organizationId: org, keys }) {
    const [frameworks, requirements, entities] = await Promise.all([
      selectAll(q, 'frameworks', org, ['name', 'id']),
      selectAll(q, 'requirements', org, ['framework_id', 'position', 'code', 'id']),
      entitiesBySubject(q, org, 'framework'),
    ]);
    const byFramework = new Map<string, typeof requirements>();
    for (const r of requirements) {
      const list = byFramework.get(r.framework_id);
      if (list) list.push(r);
      else byFramework.set(r.framework_id, [r]);
    }
    const out: CurrentRecord<ProgramFramework>[] = [];
    for (const f of frameworks) {
      const key = keys.keyOf('framework', f.id);
      const entry: ProgramFramework = {
        key,
        name: f.name,
        requirements: (byFramework.get(f.id) ?? []).map((r) => {
          const stored = keys.storedKeyOf('requirement', r.id);
          const own = stored === undefined ? r.id : ownPart(stored);
          keys.register('requirement', requirementRef(key, own), r.id);
          return { key: own, code: r.code, name: r.name };
        }),
        entities: sorted((entities.get(f.id) ?? []).map((id) => keys.keyOf('entity', id))),
        nextAuditDate: f.next_audit_date === null ? null : Number(f.next_audit_date),
        tscSelections: JSON.parse(f.tsc_selections) as string[],
        addedOn: Number(f.added_on),
        modifiedOn: f.modified_on === null ? null : Number(f.modified_on),
      };
      entry.addedBy = f.added_by === null ? null : keys.keyOf('person', f.added_by);
      entry.lastModifiedBy = f.last_modified_by === null ? null : keys.keyOf('person', f.last_modified_by);
      out.push({ id: f.id, entry: reorder(entry) });
    }
    return out;
  },

  ownKeys: (entry) => entry.requirements.map((r) => ({ record: 'requirement', key: requirementRef(entry.key, r.key) })),

  normalize(entry, current, ctx) {
    const merged = mergeEntry(
      entry,
      current,
      { entities: [], tscSelections: [], nextAuditDate: null, lastModifiedBy: null, ...createdStamps(ctx) },
      FIELDS,
    );
    merged.requirements = entry.requirements.map((r) => ({ key: r.key, code: r.code, name: r.name }));
    merged.entities = sorted(merged.entities);
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),
  // what the compliance rule reads of it
  touchesCompliance: changesAny<ProgramFramework>(['requirements']),

  check(entry, pointer, issues) {
    const seen = new Map<string, number>();
    entry.requirements.forEach((r, i) => {
      const first = seen.get(r.key);
      if (first !== undefined)
        issues.push({
          field: `${pointer}/requirements/${i}/key`,
          message: `repeats the key "${r.key}" of ${pointer}/requirements/${first}`,
        });
      else seen.set(r.key, i);
    });
  },

  references(entry, pointer) {
    const refs = (entry.entities ?? []).map((key, i) => ({ record: 'entity', key, pointer: `${pointer}/entities/${i}` }));
    if (typeof entry.addedBy === 'string') refs.push({ record: 'person', key: entry.addedBy, pointer: `${pointer}/addedBy` });
    if (typeof entry.lastModifiedBy === 'string')
      refs.push({ record: 'person', key: entry.lastModifiedBy, pointer: `${pointer}/lastModifiedBy` });
    return refs;
  },

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'frameworks',
      columns: frameworkColumns,
      subject: 'framework',
      links: ['entities'],
      children: (w, upserts) => writeRequirements(w, upserts, []),
      // Deleted frameworks take their requirements, and requirements take their mappings.
      childrenOfDeleted: (w, _ids, deleted) => writeRequirements(w, [], deleted),
    }),
};

/** Fields in one order, so an entry read back and an entry normalized compare equal field by field and print alike. */
function reorder(e: ProgramFramework): ProgramFramework {
  const out: Record<string, unknown> = { key: e.key };
  for (const f of FIELDS) if (e[f] !== undefined) out[f] = e[f];
  return out as ProgramFramework;
}

export type FrameworkChange = RecordChange<ProgramFramework>;

/** Requirements: each framework's list, matched by key; those no longer listed (or of a deleted framework) go, with their mappings. */
async function writeRequirements(w: WriteContext, upserts: readonly FrameworkChange[], deleted: readonly FrameworkChange[]): Promise<void> {
  const { db, trx, organizationId: org, keys } = w;
  const newRequirements: Row<'requirements'>[] = [];
  const updates: Array<{ id: string; set: Record<string, unknown> }> = [];
  const goneRequirements: string[] = [];
  for (const c of upserts) {
    const before = new Map((c.before?.requirements ?? []).map((r, i) => [r.key, { ...r, position: i }]));
    c.after!.requirements.forEach((r, position) => {
      const id = keys.idOf('requirement', requirementRef(c.key, r.key));
      const was = before.get(r.key);
      before.delete(r.key);
      if (!was) newRequirements.push({ id, organization_id: org, framework_id: c.id, code: r.code, name: r.name, position });
      else if (was.code !== r.code || was.name !== r.name || was.position !== position)
        updates.push({ id, set: { code: r.code, name: r.name, position } });
    });
    for (const r of before.values()) goneRequirements.push(keys.idOf('requirement', requirementRef(c.key, r.key)));
  }
  await insertRows(db, trx, 'requirements', newRequirements);
  for (const u of updates) await updateRow(trx, 'requirements', org, u.id, u.set);
  for (const c of deleted)
    for (const r of c.before!.requirements) goneRequirements.push(keys.idOf('requirement', requirementRef(c.key, r.key)));
  if (goneRequirements.length > 0) {
    await deleteWhereIn(trx, 'control_requirements', org, 'requirement_id', goneRequirements);
    await deleteWhereIn(trx, 'artifact_requirements', org, 'requirement_id', goneRequirements);
    await deleteWhereIn(trx, 'requirements', org, 'id', goneRequirements);
    await deleteProgramKeys(trx, org, 'requirement', goneRequirements);
  }
}
