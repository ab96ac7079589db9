// compliance frameworks list
import { listFilter } from '../args.ts';
import type { ListFrameworksQuery } from '../sdk.ts';
import { LIST_FIELDS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { fieldsOption, listCommand } from './reads.ts';

export const frameworkCommands: Command[] = [
  listCommand({
    resource: 'frameworks',
    summary: 'frameworks with their compliance progress',
    examples: ['frameworks list', 'frameworks list --fields addedOn,tscSelections -o json'],
    options: [listFilter('entity-ids', 'frameworks linked to any of these entity IDs'), fieldsOption(LIST_FIELDS.frameworks)],
    fetch: (client, query, options) => client.frameworks.list(query as ListFrameworksQuery, options),
  }),
];
