// compliance controls list | get | update
import { listFilter, UsageError } from '../args.ts';
import { writeRecord } from '../output/writer.ts';
import type { GetControlQuery, ListControlsQuery, UpdateControlBody } from '../sdk.ts';
import { CONTROL_SCOPE, CONTROL_STATUS, FUNCTION_GROUPINGS, GET_FIELDS, LIST_FIELDS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';
import { idempotencyKeyOption, readJsonObject, sendWrite } from './writes.ts';

const update: Command = {
  group: 'controls',
  action: 'update',
  summary: "change a control's scope (with its reason) or assignees (extension)",
  examples: [
    "controls update CONTROL_ID --scope out_of_scope --reason 'No on-premise hosts'",
    'controls update CONTROL_ID --scope in_scope',
    'controls update CONTROL_ID --assignee ada@example.com --assignee bob@example.com',
    'controls update CONTROL_ID --clear-assignees',
  ],
  args: 'CONTROL_ID',
  positionals: { min: 1, max: 1, name: 'CONTROL_ID' },
  options: [
    { name: 'scope', kind: 'string', values: CONTROL_SCOPE, valueName: 'SCOPE', help: `${CONTROL_SCOPE.join(' or ')}` },
    { name: 'reason', kind: 'string', valueName: 'TEXT', help: 'why the control is out of scope (needed to go out of scope)' },
    {
      name: 'assignee',
      kind: 'string',
      repeatable: true,
      valueName: 'EMAIL',
      help: 'an assignee (a person of the organization); repeat for more, the first is primary; they replace the assignees',
    },
    { name: 'clear-assignees', kind: 'switch', help: 'remove every assignee' },
    {
      name: 'file',
      short: 'f',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the change as a JSON object (- reads stdin); flags override its fields',
    },
    idempotencyKeyOption,
  ],
  notes:
    'Going out of scope needs --reason and stamps markedOutOfScopeBy with the credential; back in scope clears both. The control becomes not_applicable out of scope, and its frameworks stop counting it: the control.status_changed and framework.progress_changed events are on `compliance events`.',
  async run(ctx, values, [id]) {
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    if (values.scope !== undefined) body.controlScope = values.scope;
    if (values.reason !== undefined) body.outOfScopeReason = values.reason;
    const assignees = values.assignee as string[] | undefined;
    if (assignees && values['clear-assignees']) throw new UsageError('--assignee and --clear-assignees cannot be combined');
    if (assignees) body.assigneeEmails = assignees;
    if (values['clear-assignees']) body.assigneeEmails = [];
    if (Object.keys(body).length === 0)
      throw new UsageError('nothing to change: give --scope, --reason, --assignee, --clear-assignees or --file');
    const client = ctx.client();
    const result = await sendWrite(ctx, values, (options) => client.controls.update(id, body as UpdateControlBody, options));
    ctx.io.err(`updated ${result.data.controlId}: ${result.data.controlScope}, status ${result.data.status}`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

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
  update,
];
