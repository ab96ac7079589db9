// The audit log as the console pages through it: newest first, with an opaque cursor.
import type { AdminContext } from '../context.ts';
import { validationFailed } from '../../shared/errors.ts';
import { listAuditEntries, type AuditEntry as AuditRow } from '../../storage/db/repositories/console/audit-log.ts';
import type { AuditEntry } from './schema.ts';
import type { AuditAction } from './audit.ts';

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
