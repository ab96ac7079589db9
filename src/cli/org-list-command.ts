// The `list` command of a group whose records belong to one organization (`admin list`,
// `credential list`): --org names the organization, --json prints the rows as they are, else a
// table; the audit log names the command.
import type { AdminContext } from '../domain/context.ts';
import { JSON_OPTION, ORG_OPTION, type Command } from './command.ts';
import { operatorContext } from './organization-id.ts';
import { printList } from './table.ts';

export function orgListCommand<R>(
  group: string,
  summary: string,
  list: (input: { ctx: AdminContext }) => Promise<readonly R[]>,
  headers: string[],
  cells: (row: R) => string[],
): Command {
  return {
    group,
    action: 'list',
    summary,
    options: { org: ORG_OPTION, json: JSON_OPTION },
    async run({ system: ctx }, { values }, io) {
      const rows = await list({ ctx: await operatorContext(ctx, values.org as string, `cds ${group} list`) });
      printList(io, values.json, rows, headers, cells);
    },
  };
}
