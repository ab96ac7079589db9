// Changing which resources an organization's plan includes (the CLI's `cds org update`). Not reachable through the API.
import type { BaseContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { parsePlan } from '../auth/scopes.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import * as orgs from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';

export async function updateOrganizationPlan({ ctx, input }: { ctx: BaseContext; input: { organizationId: string; plan: string } }) {
  const plan = parsePlan(input.plan);
  const updated = await ctx.db.kysely.transaction().execute(async (trx) => {
    if (!(await orgs.updateOrganizationPlan(trx, input.organizationId, plan))) return false;
    await orgs.bumpDataVersions(trx, input.organizationId, WRITES['organizations.updatePlan']);
    return true;
  });
  if (!updated) throw notFound('Organization');
  await announceOrganizationChange(ctx, input.organizationId);
  return (await orgs.findOrganization(ctx.db.kysely, input.organizationId))!;
}
