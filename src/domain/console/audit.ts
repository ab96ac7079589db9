// The audit log: every administrative action (console or CLI) with who, what, when and from where.
// Entries are written in the same transaction as the change they describe, so the log never
// misses a change that happened and never records one that did not.
import type { Kysely } from 'kysely';
import { sortableId } from './sortable-id.ts';
import type { Database } from '../../storage/db/schema.ts';
import { insertAuditEntry } from '../../storage/db/repositories/console/audit-log.ts';

export const AUDIT_ACTIONS = [
  'session.sign_in',
  'session.sign_in_failed',
  'session.sign_out',
  'credential.create',
  'credential.revoke',
  'admin.create',
  'admin.password_reset',
  'webhook_endpoint.disable',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.enable',
  'webhook_endpoint.delete',
  'webhook_endpoint.rotate_secret',
  'program.apply',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted and from where: a signed-in administrator, an operator running `cds`, or the service itself (disabling a failing webhook endpoint). */
export interface AuditActor {
  type: 'admin' | 'cli' | 'system';
  id: string | null;
  label: string;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditTarget {
  type: 'credential' | 'admin' | 'session' | 'webhook_endpoint' | 'program';
  id: string;
  label: string;
}

export async function recordAudit(
  db: Kysely<Database>,
  entry: { organizationId: string; actor: AuditActor; action: AuditAction; target?: AuditTarget; at: number },
): Promise<void> {
  await insertAuditEntry(db, {
    id: sortableId(entry.at),
    organizationId: entry.organizationId,
    at: entry.at,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    targetLabel: entry.target?.label ?? null,
    // Bounded so a hostile user agent cannot bloat the log.
    ip: entry.actor.ip?.slice(0, 100) ?? null,
    userAgent: entry.actor.userAgent?.slice(0, 512) ?? null,
  });
}
