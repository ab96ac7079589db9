import { parseArgs } from 'node:util';
import type { BaseContext } from '../../domain/context.ts';
import { createOrganization } from '../../domain/organizations/create.ts';
import { listOrganizations } from '../../domain/organizations/list.ts';
import { updateOrganizationPlan } from '../../domain/organizations/update-plan.ts';
import { UsageError, type CliIo } from '../main.ts';
import { table } from '../table.ts';

export async function orgCommand(ctx: BaseContext, args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  switch (sub) {
    case 'create': {
      if (!values.name) throw new UsageError('org create needs --name.');
      const org = await createOrganization({ ctx, input: { name: values.name, plan: values.plan } });
      io.out(values.json ? JSON.stringify(org) : `Created organization ${org.id} "${org.name}" (region ${org.region}, plan ${org.plan.join(',')})`);
      return 0;
    }
    case 'list': {
      const orgs = await listOrganizations({ ctx });
      if (values.json) io.out(JSON.stringify(orgs));
      else io.out(table(['ID', 'NAME', 'REGION', 'PLAN'], orgs.map((o) => [o.id, o.name, o.region, o.plan.join(',')])));
      return 0;
    }
    case 'update': {
      const id = positionals[0];
      if (!id || values.plan === undefined) throw new UsageError('org update needs ORG and --plan.');
      const org = await updateOrganizationPlan({ ctx, input: { organizationId: id, plan: values.plan } });
      io.out(values.json ? JSON.stringify(org) : `Organization ${org.id} plan: ${org.plan.join(',')}`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown org command "${sub ?? ''}".`);
  }
}
