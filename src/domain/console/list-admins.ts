// The actor's organization's console administrators (`cds admin list`), without their password hashes.
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { listAdmins as listAdminRows } from '../../storage/db/repositories/console/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import type { AdminView } from './admin-view.ts';

export async function listAdmins({ ctx }: { ctx: AdminContext }): Promise<AdminView[]> {
  const org = await findOrganization(ctx.db.kysely, ctx.actor.organizationId);
  if (!org) throw notFound('Organization');
  return (await listAdminRows(ctx.db.kysely, org.id)).map(({ passwordHash: _omit, ...rest }) => rest);
}
