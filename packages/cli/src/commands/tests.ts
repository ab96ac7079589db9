// compliance tests list | get
import { listFilter } from '../args.ts';
import type { GetTestQuery, ListTestsQuery } from '../sdk.ts';
import { GET_FIELDS, LIST_FIELDS, TEST_STATUS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';

export const testCommands: Command[] = [
  listCommand({
    resource: 'tests',
    summary: 'automated and cloud tests',
    examples: ['tests list --status fix_required,affected', 'tests list --applications aws -o ndjson'],
    options: [
      listFilter('status', 'computed status', TEST_STATUS),
      listFilter('framework-ids', 'tests mapped to any of these frameworks'),
      listFilter('assignee-emails', 'tests assigned to any of these emails'),
      listFilter('applications', 'application names (case-insensitive)'),
      fieldsOption(LIST_FIELDS.tests),
    ],
    fetch: (client, query, options) => client.tests.list(query as ListTestsQuery, options),
  }),
  getCommand({
    resource: 'tests',
    summary: 'one test, with its flagged resources',
    examples: ['tests get TEST_ID', 'tests get TEST_ID --resource-status fix_required,passing --fields testHistory'],
    idName: 'TEST_ID',
    options: [
      listFilter('resource-status', 'flagged resources to show, by status (default fix_required)', TEST_STATUS),
      fieldsOption(GET_FIELDS.tests, 'expansions to include'),
    ],
    fetch: (client, id, query, options) => client.tests.get(id, query as GetTestQuery, options),
  }),
];
