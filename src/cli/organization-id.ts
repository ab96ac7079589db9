// `--org` (and `org update ORG`) take an organization's ID or its exact name. A value that is
// neither is passed on as an ID, so the command reports it not found (exit 4) as it would an
// unknown ID; a name several organizations share is a usage error listing their IDs.
import type { BaseContext } from '../domain/context.ts';
import { listOrganizations } from '../domain/organizations/list.ts';
import { UsageError } from './usage-error.ts';
import { operatorActor } from '../operator-actor.ts';

export async function organizationId(ctx: BaseContext, idOrName: string): Promise<string> {
  const organizations = await listOrganizations({ ctx });
  if (organizations.some((o) => o.id === idOrName)) return idOrName;
  const named = organizations.filter((o) => o.name === idOrName);
  if (named.length > 1)
    throw new UsageError(`${named.length} organizations are named "${idOrName}": ${named.map((o) => o.id).join(', ')}. Give the ID.`);
  return named[0]?.id ?? idOrName;
}

/** The context of a verb the operator runs for the organization `idOrName` names; the audit log names `command`. */
export async function operatorContext(ctx: BaseContext, idOrName: string, command: string) {
  return { ...ctx, actor: { ...operatorActor(command), organizationId: await organizationId(ctx, idOrName) } };
}
