// compliance policies list | get | submit | approve | publish | request-review | update
import type { GetPolicyQuery, ListPoliciesQuery } from '../sdk.ts';
import { GET_FIELDS, LIST_FIELDS, POLICY_STATUS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { artifactFilters } from './artifact-filters.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';
import { policyMoveCommands } from './moves.ts';

export const policyCommands: Command[] = [
  listCommand({
    resource: 'policies',
    summary: 'policies',
    examples: ['policies list --is-relevant true --departments "No Department"', 'policies list --next-review-at-to 2026-12-31 -o json'],
    options: [...artifactFilters('policies', POLICY_STATUS), fieldsOption(LIST_FIELDS.policies)],
    fetch: (client, query, options) => client.policies.list(query as ListPoliciesQuery, options),
  }),
  getCommand({
    resource: 'policies',
    summary: 'one policy, with its requirement text and mappings',
    examples: ['policies get POLICY_ID --fields documents,versionHistory'],
    idName: 'POLICY_ID',
    options: [fieldsOption(GET_FIELDS.policies, 'expansions to include')],
    fetch: (client, id, query, options) => client.policies.get(id, query as GetPolicyQuery, options),
  }),
  ...policyMoveCommands,
];
