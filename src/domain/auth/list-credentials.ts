// The actor's organization's API credentials, revoked ones included, without their secrets.
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { credentialView as view } from './credential-view.ts';
import * as credentials from '../../storage/db/repositories/auth/credentials.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';

export async function listCredentials({ ctx }: { ctx: AdminContext }) {
  const org = await findOrganization(ctx.db.kysely, ctx.actor.organizationId);
  if (!org) throw notFound('Organization');
  return (await credentials.listCredentials(ctx.db.kysely, org.id)).map(view);
}
