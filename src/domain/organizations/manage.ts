// Administration of organizations (the CLI's `cds org …`). Not reachable through /v1.
import { randomUUID } from 'node:crypto';
import type { BaseContext } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { parsePlan, RESOURCES } from '../auth/scopes.ts';
import * as orgs from '../../storage/db/repositories/organizations.ts';
import { invisibleIssue, typedName } from '../text.ts';

export type { Organization } from '../../storage/db/repositories/organizations.ts';

export async function createOrganization({ ctx, input }: { ctx: BaseContext; input: { name: string; plan?: string } }) {
  const name = typedName(input.name);
  if (name === undefined) throw validationFailed([invisibleIssue('name')]);
  if (!name) throw validationFailed([{ field: 'name', message: 'must not be empty' }]);
  const org = {
    id: randomUUID(),
    name,
    region: ctx.region,
    plan: input.plan === undefined ? [...RESOURCES] : parsePlan(input.plan),
    createdAt: ctx.now(),
  };
  await orgs.insertOrganization(ctx.db.kysely, org);
  return org;
}

export async function listOrganizations({ ctx }: { ctx: BaseContext }) {
  return orgs.listOrganizations(ctx.db.kysely);
}

export async function updateOrganizationPlan({ ctx, input }: { ctx: BaseContext; input: { organizationId: string; plan: string } }) {
  const plan = parsePlan(input.plan);
  const updated = await orgs.updateOrganizationPlan(ctx.db.kysely, input.organizationId, plan);
  if (!updated) throw notFound('Organization');
  return (await orgs.findOrganization(ctx.db.kysely, input.organizationId))!;
}
