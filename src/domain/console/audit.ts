// The audit log: every administrative action (console or CLI) with who, what, when and from where.
// Entries are written in the same transaction as the change they describe, so the log never
// misses a change that happened and never records one that did not.
import type { Kysely } from 'kysely';
import type { AdminContext } from '../context.ts';
import { validationFailed } from '../errors.ts';
import { sortableId } from './sortable-id.ts';
import type { Database } from '../../storage/db/schema.ts';
import { insertAuditEntry, listAuditEntries, type AuditEntry as AuditRow } from '../../storage/db/repositories/audit-log.ts';
import type { AuditEntry } from './schema.ts';

export const AUDIT_ACTIONS = [
  'session.sign_in',
  'session.sign_in_failed',
  'session.sign_out',
  'credential.create',
  'credential.revoke',
  'admin.create',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted and from where: a signed-in administrator, or an operator running `cds`. */
export interface AuditActor {
  type: 'admin' | 'cli';
  id: string | null;
  label: string;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditTarget {
  type: 'credential' | 'admin' | 'session';
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

const view = (e: AuditRow): AuditEntry => ({
  id: e.id,
  at: e.at,
  actor: { type: e.actorType, label: e.actorLabel },
  action: e.action as AuditAction,
  target: e.targetType && e.targetId ? { type: e.targetType, id: e.targetId, label: e.targetLabel ?? '' } : null,
  ip: e.ip,
  userAgent: e.userAgent,
});

// The cursor names the last entry shown; it is not secret (an administrator only ever pages
// through their own organization's log), just opaque and validated.
const encodeCursor = (e: AuditRow) => Buffer.from(`${e.at}:${e.id}`).toString('base64url');
function decodeCursor(cursor: string): { at: number; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,16}):([0-9a-f-]{36})$/.exec(text);
  if (!match) throw validationFailed([{ field: 'cursor', message: 'is not a cursor this endpoint issued' }]);
  return { at: Number(match[1]), id: match[2] };
}

export async function listAuditLog({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { limit: number; cursor?: string };
}): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const before = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await listAuditEntries(ctx.db.kysely, ctx.actor.organizationId, { limit: input.limit + 1, before });
  const page = rows.slice(0, input.limit);
  return { entries: page.map(view), nextCursor: rows.length > input.limit ? encodeCursor(page[page.length - 1]) : null };
}
