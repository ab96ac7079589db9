// A new password for a console administrator, set by an operator (`cds admin reset-password`)
// when the old one is lost (the demo's is printed only once). Administrator emails are unique per
// deployment, so the email alone names the account; only someone with the deployment's database
// can call this, never the console. The old password stops working and every session of the
// administrator ends, in the transaction that records the reset in the audit log.
import type { BaseContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { findAdminByEmail, updateAdminPassword } from '../../storage/db/repositories/console/admins.ts';
import { deleteSessionsOfAdmin } from '../../storage/db/repositories/console/admin-sessions.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { normalizeEmail, type AdminView } from './admin-view.ts';
import { hashPassword, passwordIssues } from './passwords.ts';

export interface ResetAdminPasswordResult {
  admin: AdminView;
  /** console sessions of the administrator that were ended */
  sessionsEnded: number;
}

export async function resetAdminPassword({
  ctx,
  input,
}: {
  ctx: BaseContext & { actor: AuditActor };
  input: { email: string; password: string };
}): Promise<ResetAdminPasswordResult> {
  if (ctx.actor.type !== 'cli') throw new Error('resetAdminPassword is for operators (cds) only');
  const issues = passwordIssues(input.password);
  if (issues.length > 0) throw validationFailed(issues);
  const admin = await findAdminByEmail(ctx.db.kysely, normalizeEmail(input.email));
  if (!admin) throw notFound('Administrator');
  const passwordHash = await hashPassword(input.password);
  const now = ctx.now();
  const sessionsEnded = await ctx.db.kysely.transaction().execute(async (tx) => {
    await updateAdminPassword(tx, admin.id, passwordHash);
    const ended = await deleteSessionsOfAdmin(tx, admin.id);
    await recordAudit(tx, {
      organizationId: admin.organizationId,
      actor: ctx.actor,
      action: 'admin.password_reset',
      target: { type: 'admin', id: admin.id, label: admin.email },
      at: now,
    });
    return ended;
  });
  const { passwordHash: _, ...view } = admin;
  return { admin: view, sessionsEnded };
}
