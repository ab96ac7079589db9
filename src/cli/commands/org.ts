// `cds org`: organizations of this deployment and their plans.
import { createOrganization } from '../../domain/organizations/create.ts';
import { listOrganizations } from '../../domain/organizations/list.ts';
import { updateOrganizationPlan } from '../../domain/organizations/update-plan.ts';
import { JSON_OPTION, type Command } from '../command.ts';
import { organizationId } from '../organization-id.ts';
import { printList } from '../table.ts';

const PLAN_HELP = 'comma-separated of framework,control,policy,evidence,test,vulnerability';

export const orgCommands: Command[] = [
  {
    group: 'org',
    action: 'create',
    summary: 'create an organization in this region (REGION)',
    options: {
      name: { type: 'string', value: 'NAME', required: true, help: 'its name' },
      plan: { type: 'string', value: 'RESOURCES', help: `the resources it may read and write, ${PLAN_HELP} (default: all)` },
      json: JSON_OPTION,
    },
    async run({ system: ctx }, { values }, io) {
      const org = await createOrganization({ ctx, input: { name: values.name as string, plan: values.plan as string | undefined } });
      io.out(
        values.json
          ? JSON.stringify(org)
          : `Created organization ${org.id} "${org.name}" (region ${org.region}, plan ${org.plan.join(',')})`,
      );
    },
  },
  {
    group: 'org',
    action: 'list',
    summary: 'list organizations',
    options: { json: JSON_OPTION },
    async run({ system: ctx }, { values }, io) {
      const orgs = await listOrganizations({ ctx });
      printList(io, values.json, orgs, ['ID', 'NAME', 'REGION', 'PLAN'], (o) => [o.id, o.name, o.region, o.plan.join(',')]);
    },
  },
  {
    group: 'org',
    action: 'update',
    summary: "set an organization's plan",
    argument: 'ORG',
    options: {
      plan: { type: 'string', value: 'RESOURCES', required: true, emptyAllowed: true, help: PLAN_HELP },
      json: JSON_OPTION,
    },
    async run({ system: ctx }, { values, argument }, io) {
      const id = await organizationId(ctx, argument!);
      const org = await updateOrganizationPlan({ ctx, input: { organizationId: id, plan: values.plan as string } });
      io.out(values.json ? JSON.stringify(org) : `Organization ${org.id} plan: ${org.plan.join(',')}`);
    },
  },
];
