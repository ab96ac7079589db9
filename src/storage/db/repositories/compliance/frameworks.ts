import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface FrameworkRow {
  id: string;
  name: string;
  nextAuditDate: number | null;
  tscSelections: string[];
  addedBy: string | null;
  addedOn: number;
  lastModifiedBy: string | null;
  modifiedOn: number | null;
}

/** Frameworks of the organization, optionally only those linked to one of `entityIds`. */
export async function listFrameworks(db: Q, organizationId: string, filter: { entityIds?: string[] }): Promise<FrameworkRow[]> {
  let query = db.selectFrom('frameworks as f').selectAll('f').where('f.organization_id', '=', organizationId);
  if (filter.entityIds && filter.entityIds.length > 0) {
    const entityIds = filter.entityIds;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('subject_entities as se')
          .select('se.subject_id')
          .where('se.organization_id', '=', organizationId)
          .where('se.subject_type', '=', 'framework')
          .whereRef('se.subject_id', '=', 'f.id')
          .where('se.entity_id', 'in', entityIds),
      ),
    );
  }
  const rows = await query.orderBy('f.name').orderBy('f.id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    nextAuditDate: r.next_audit_date === null ? null : Number(r.next_audit_date),
    tscSelections: JSON.parse(r.tsc_selections) as string[],
    addedBy: r.added_by,
    addedOn: Number(r.added_on),
    lastModifiedBy: r.last_modified_by,
    modifiedOn: r.modified_on === null ? null : Number(r.modified_on),
  }));
}
