// The console's compliance overview: the framework list's own verb, run for the administrator's
// organization with every read scope, so the console and the API can never disagree.
import type { AdminActor, SystemContext } from '../context.ts';
import { scopesFor } from '../auth/scopes.ts';
import { listFrameworks } from '../frameworks/list.ts';
import { notFound } from '../../shared/errors.ts';
import type { Overview } from './schema.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';

export async function complianceOverview({ ctx }: { ctx: SystemContext & { actor: AdminActor } }): Promise<Overview> {
  const admin = ctx.actor;
  const org = await findOrganizationState(ctx.db.kysely, admin.organizationId);
  if (!org) throw notFound('Organization');
  const frameworks = await listFrameworks({
    ctx: {
      ...ctx,
      actor: {
        organizationId: admin.organizationId,
        credentialId: `console:${admin.id}`,
        scopes: new Set(scopesFor('read_only')),
        plan: new Set(org.plan),
        dataVersions: org.dataVersions,
      },
    },
    input: {},
  });
  return {
    frameworks: frameworks.map((f) => ({
      frameworkId: f.frameworkId,
      frameworkName: f.frameworkName,
      complianceProgress: f.complianceProgress,
    })),
  };
}
