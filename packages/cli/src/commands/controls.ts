// compliance controls list | get
import { listFilter } from '../args.ts';
import type { GetControlQuery, ListControlsQuery } from '../sdk.ts';
import { CONTROL_SCOPE, CONTROL_STATUS, FUNCTION_GROUPINGS, GET_FIELDS, LIST_FIELDS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';

export const controlCommands: Command[] = [
  listCommand({
    resource: 'controls',
    summary: 'controls with their computed status',
    examples: [
      'controls list --status non_compliant --function-groupings protect',
      'controls list --framework-ids FRAMEWORK_ID --status compliant -o ndjson | wc -l',
    ],
    options: [
      listFilter('status', 'computed status (over --framework-ids when given)', CONTROL_STATUS),
      listFilter('framework-ids', 'controls mapped to any of these frameworks; status is then computed over them only'),
      listFilter('entity-ids', 'controls linked to any of these entity IDs'),
      listFilter('assignee-emails', 'controls assigned to any of these emails'),
      listFilter('domains', 'control domains (case-insensitive)'),
      listFilter('function-groupings', 'function groupings', FUNCTION_GROUPINGS),
      listFilter('control-scope', 'scope', CONTROL_SCOPE),
      fieldsOption(LIST_FIELDS.controls),
    ],
    fetch: (client, query, options) => client.controls.list(query as ListControlsQuery, options),
  }),
  getCommand({
    resource: 'controls',
    summary: 'one control, with its description, mappings and questions',
    idName: 'CONTROL_ID',
    examples: ['controls get CONTROL_ID', 'controls get CONTROL_ID --fields mappedArtifacts,complianceOverview -o json'],
    options: [fieldsOption(GET_FIELDS.controls, 'expansions to include')],
    fetch: (client, id, query, options) => client.controls.get(id, query as GetControlQuery, options),
  }),
];
