// The one writer of a kind's records (issue 37): a kind declares its table, the columns an entry
// makes and the links it carries (RowsAndLinks); this writes them through the repositories
// (src/storage/db/repositories/program/program-writes.ts, program-links.ts). A kind's child rows that are
// its own (a policy's documents, a test's resources) stay its own, in the `children` hooks.
import type { TableName } from '../../storage/db/bulk-insert.ts';
import type { SubjectType } from '../../storage/db/schema.ts';
import { deleteWhereIn, insertRows, updateRow, type OwnedTable } from '../../storage/db/repositories/program/program-writes.ts';
import {
  deleteControlMappings,
  deleteSubjectLinks,
  replaceArtifactMappings,
  replaceControlRequirements,
  replaceSubjectLinks,
  type PersonLink,
  type TicketLink,
} from '../../storage/db/repositories/program/program-links.ts';
import type { KeyedEntry, RecordChange, WriteContext } from './kind.ts';
import { changedList } from './list-changes.ts';

/** The link fields an entry may carry, and the record kind each one's keys name. */
const KEY_LINKS = { entities: 'entity', risks: 'risk', requirements: 'requirement', controls: 'control' } as const;
type KeyLink = keyof typeof KEY_LINKS;
export type LinkField = KeyLink | 'assignees' | 'approvers' | 'tickets';

/** What an entry's link fields hold (their schemas: src/domain/kinds/fields.ts). */
interface LinkValues {
  assignees?: readonly { person: string; isPrimary?: boolean }[];
  approvers?: readonly string[];
  tickets?: readonly unknown[];
  entities?: readonly string[];
  risks?: readonly string[];
  requirements?: readonly string[];
  controls?: readonly string[];
}

export interface RowsAndLinks<E extends KeyedEntry> {
  /** the table holding one row per record */
  table: OwnedTable;
  /** the row's columns from the entry (its `id` and `organization_id` are added) */
  columns(entry: E, w: WriteContext): Record<string, unknown>;
  /** columns only a new row gets, from its key (a finding's source and key) */
  keyColumns?(key: string): Record<string, unknown>;
  /** the entry fields the row stores: an update writes the row only when one of them changed (default: every update does) */
  rowFields?: readonly (keyof E)[];
  /** the subject type the record's people, entities, risks and tickets hang from */
  subject?: SubjectType;
  /** the link fields the entry carries, written when they change */
  links?: readonly LinkField[];
  /** how the requirements and controls links are stored: a control's own mappings, or an artifact's */
  mappings?: 'control' | 'policy' | 'evidence' | 'test';
  /** the row ID of a record's ticket at a place in its list (stable per place, so GET's ties keep the document's order) */
  ticketRowId?(subjectId: string, index: number): string;
  /** a ticket entry as stored (default: as the entry gives it) */
  ticket?(entry: never): TicketLink;
  /** rows of other tables naming a deleted record: [table, column], deleted before it */
  dependents?: ReadonlyArray<readonly [TableName, string]>;
  /** the kind's own child rows of the created and updated records, after their rows and links */
  children?(w: WriteContext, upserts: readonly RecordChange<E>[]): Promise<void>;
  /** the kind's own clean-up before its deleted records go (after `dependents`) */
  childrenOfDeleted?(w: WriteContext, ids: readonly string[], deleted: readonly RecordChange<E>[]): Promise<void>;
  /** what the kind does after its new rows are inserted, before the updated ones are written (people trading emails let go of theirs) */
  beforeUpdates?(w: WriteContext, updated: readonly RecordChange<E>[]): Promise<void>;
}

/** Writes a chunk of a kind's changes as its declaration says: the creates and updates, or the deletes. */
export async function writeRowsAndLinks<E extends KeyedEntry>(
  w: WriteContext,
  changes: readonly RecordChange<E>[],
  d: RowsAndLinks<E>,
): Promise<void> {
  const { db, trx, organizationId: org } = w;
  const deleted = changes.filter((c) => c.action === 'delete');
  if (deleted.length > 0) await deleteRecords(w, deleted, d);

  const created = changes.filter((c) => c.action === 'create');
  const updated = changes.filter((c) => c.action === 'update');
  await insertRows(
    db,
    trx,
    d.table,
    created.map((c) => ({ id: c.id, organization_id: org, ...d.keyColumns?.(c.key), ...d.columns(c.after!, w) })) as never[],
  );
  if (d.beforeUpdates) await d.beforeUpdates(w, updated);
  for (const c of updated)
    if (!d.rowFields || changedList(c, ...d.rowFields)) await updateRow(trx, d.table, org, c.id, d.columns(c.after!, w));

  const upserts = [...created, ...updated];
  await writeLinks(w, upserts, new Set(created.map((c) => c.id)), d);
  if (d.children) await d.children(w, upserts);
}

async function deleteRecords<E extends KeyedEntry>(
  w: WriteContext,
  deleted: readonly RecordChange<E>[],
  d: RowsAndLinks<E>,
): Promise<void> {
  const { trx, organizationId: org } = w;
  const ids = deleted.map((c) => c.id);
  for (const [table, column] of d.dependents ?? []) await deleteWhereIn(trx, table, org, column, ids);
  if (d.childrenOfDeleted) await d.childrenOfDeleted(w, ids, deleted);
  if (d.mappings === 'control') await deleteControlMappings(trx, org, ids);
  else if (d.mappings) {
    const none = () => new Map(ids.map((id) => [id, []]));
    await replaceArtifactMappings(w.db, trx, org, d.mappings, { requirements: none(), controls: none() });
  }
  if (d.subject) await deleteSubjectLinks(trx, org, d.subject, ids);
  await deleteWhereIn(trx, d.table, org, 'id', ids);
}

/** Replaces the links that changed: every link of a new record, the changed lists of an updated one. */
async function writeLinks<E extends KeyedEntry>(
  w: WriteContext,
  upserts: readonly RecordChange<E>[],
  fresh: ReadonlySet<string>,
  d: RowsAndLinks<E>,
): Promise<void> {
  const fields = new Set(d.links ?? []);
  if (fields.size === 0) return;
  const { keys } = w;
  const people = new Map<string, PersonLink[]>();
  const tickets = new Map<string, TicketLink[]>();
  const byKey = new Map<KeyLink, Map<string, string[]>>();
  for (const f of Object.keys(KEY_LINKS) as KeyLink[]) if (fields.has(f)) byKey.set(f, new Map());
  const personFields = (['assignees', 'approvers'] as const).filter((f) => fields.has(f));
  const asTicket = d.ticket ?? ((t: TicketLink) => t);
  for (const c of upserts) {
    const e = c.after! as E & LinkValues;
    const changed = (...f: LinkField[]) => changedList(c, ...(f as (keyof E)[]));
    if (personFields.length > 0 && changed(...personFields))
      people.set(c.id, [
        ...(e.assignees ?? []).map((p) => ({
          personId: keys.idOf('person', p.person),
          role: 'assignee' as const,
          isPrimary: p.isPrimary ?? false,
        })),
        ...(e.approvers ?? []).map((k) => ({ personId: keys.idOf('person', k), role: 'approver' as const, isPrimary: false })),
      ]);
    if (fields.has('tickets') && changed('tickets'))
      tickets.set(
        c.id,
        (e.tickets ?? []).map((t) => asTicket(t as never)),
      );
    for (const [f, map] of byKey)
      if (changed(f))
        map.set(
          c.id,
          (e[f] ?? []).map((k) => keys.idOf(KEY_LINKS[f], k)),
        );
  }
  const { db, trx, organizationId: org } = w;
  if (d.subject)
    await replaceSubjectLinks(
      db,
      trx,
      org,
      d.subject,
      { people, tickets, entities: byKey.get('entities'), risks: byKey.get('risks') },
      d.ticketRowId ?? (() => ''),
      fresh,
    );
  const requirements = byKey.get('requirements') ?? new Map<string, string[]>();
  if (d.mappings === 'control') await replaceControlRequirements(db, trx, org, requirements, fresh);
  else if (d.mappings) await replaceArtifactMappings(db, trx, org, d.mappings, { requirements, controls: byKey.get('controls') }, fresh);
}
