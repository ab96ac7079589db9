// A new console administrator of the actor's organization: created by an operator (`cds admin
// create`) or by the demo loader.
import { randomUUID } from 'node:crypto';
import type { AdminContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { isUniqueViolation } from '../../storage/db/errors.ts';
import { findAdminByEmail, insertAdmin } from '../../storage/db/repositories/console/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { recordAudit } from './audit.ts';
import { normalizeEmail, type AdminView } from './admin-view.ts';
import { hashPassword, passwordIssues } from './passwords.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAdmin({ ctx, input }: { ctx: AdminContext; input: { email: string; password: string } }): Promise<AdminView> {
  const email = normalizeEmail(input.email);
  const issues = [
    ...(EMAIL.test(email) && email.length <= 320 ? [] : [{ field: 'email', message: 'must be an email address' }]),
    ...passwordIssues(input.password),
  ];
  if (issues.length > 0) throw validationFailed(issues);
  const org = await findOrganization(ctx.db.kysely, ctx.actor.organizationId);
  if (!org) throw notFound('Organization');
  const taken = () => validationFailed([{ field: 'email', message: 'is already an administrator account' }]);
  if (await findAdminByEmail(ctx.db.kysely, email)) throw taken();

  const now = ctx.now();
  const admin = {
    id: randomUUID(),
    organizationId: org.id,
    email,
    passwordHash: await hashPassword(input.password),
    createdAt: now,
    lastSignInAt: null,
  };
  try {
    await ctx.db.kysely.transaction().execute(async (tx) => {
      await insertAdmin(tx, admin);
      await recordAudit(tx, {
        organizationId: org.id,
        actor: ctx.actor,
        action: 'admin.create',
        target: { type: 'admin', id: admin.id, label: email },
        at: now,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  return { id: admin.id, organizationId: org.id, email, createdAt: now, lastSignInAt: null };
}
