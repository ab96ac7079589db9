// Every organization in the database (the CLI's `cds org list`). Not reachable through the API.
import type { BaseContext } from '../context.ts';
import * as orgs from '../../storage/db/repositories/organizations/organizations.ts';

export async function listOrganizations({ ctx }: { ctx: BaseContext }) {
  return orgs.listOrganizations(ctx.db.kysely);
}
