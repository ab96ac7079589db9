// A new organization in this deployment's region (the CLI's `cds org create`). Not reachable through the API.
import { randomUUID } from 'node:crypto';
import type { BaseContext } from '../context.ts';
import { validationFailed } from '../../shared/errors.ts';
import { parsePlan, RESOURCES } from '../auth/scopes.ts';
import * as orgs from '../../storage/db/repositories/organizations/organizations.ts';
import { invisibleIssue, typedName } from '../text.ts';

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
