// An organization's console administrators (`cds admin list`), without their password hashes.
import type { BaseContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { listAdmins as listAdminRows } from '../../storage/db/repositories/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations.ts';
import type { AdminView } from './admin-view.ts';

export async function listAdmins({ ctx, input }: { ctx: BaseContext; input: { organizationId: string } }): Promise<AdminView[]> {
  const org = await findOrganization(ctx.db.kysely, input.organizationId);
  if (!org) throw notFound('Organization');
  return (await listAdminRows(ctx.db.kysely, org.id)).map(({ passwordHash: _omit, ...rest }) => rest);
}
