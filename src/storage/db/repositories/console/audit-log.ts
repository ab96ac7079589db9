import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface AuditEntry {
  id: string;
  organizationId: string | null;
  at: number;
  actorType: 'admin' | 'cli' | 'system';
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  ip: string | null;
  userAgent: string | null;
}

const toEntry = (row: Database['audit_log']): AuditEntry => ({
  id: row.id,
  organizationId: row.organization_id,
  at: Number(row.at),
  actorType: row.actor_type as AuditEntry['actorType'],
  actorId: row.actor_id,
  actorLabel: row.actor_label,
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  targetLabel: row.target_label,
  ip: row.ip,
  userAgent: row.user_agent,
});

export async function insertAuditEntry(db: Q, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: e.id,
      organization_id: e.organizationId,
      at: e.at,
      actor_type: e.actorType,
      actor_id: e.actorId,
      actor_label: e.actorLabel,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      target_label: e.targetLabel,
      ip: e.ip,
      user_agent: e.userAgent,
    })
    .execute();
}

/** Newest first; `before` is the (at, id) of the last entry of the previous page. */
export async function listAuditEntries(
  db: Q,
  organizationId: string,
  options: { limit: number; before?: { at: number; id: string } },
): Promise<AuditEntry[]> {
  let query = db.selectFrom('audit_log').selectAll().where('organization_id', '=', organizationId);
  const before = options.before;
  if (before) {
    query = query.where((eb) => eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]));
  }
  const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map(toEntry);
}
