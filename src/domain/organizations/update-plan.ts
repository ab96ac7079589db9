// Changing which resources an organization's plan includes (the CLI's `cds org update`). Not reachable through the API.
import type { BaseContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { parsePlan } from '../auth/scopes.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import * as orgs from '../../storage/db/repositories/organizations.ts';

export async function updateOrganizationPlan({ ctx, input }: { ctx: BaseContext; input: { organizationId: string; plan: string } }) {
  const plan = parsePlan(input.plan);
  const updated = await orgs.updateOrganizationPlan(ctx.db.kysely, input.organizationId, plan);
  if (!updated) throw notFound('Organization');
  await announceOrganizationChange(ctx, input.organizationId);
  return (await orgs.findOrganization(ctx.db.kysely, input.organizationId))!;
}
