// compliance tests list | get | record-result | import (./tests-import.ts)
import { listFilter, UsageError } from '../args.ts';
import { writeRecord } from '../output/writer.ts';
import type { GetTestQuery, ListTestsQuery, RecordTestResultBody } from '../sdk.ts';
import { GET_FIELDS, LIST_FIELDS, TEST_RESULT_STATUS, TEST_STATUS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { testImportCommand } from './tests-import.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';
import { idempotencyKeyOption, readJson, readJsonObject, sendWrite } from './writes.ts';

const recordResult: Command = {
  group: 'tests',
  action: 'record-result',
  summary: 'push a run of a test: its status and the resources it checked (extension)',
  examples: [
    'tests record-result TEST_ID --status passing',
    'tests record-result TEST_ID --status fix_required --resources findings.json',
    'tests record-result TEST_ID --status fix_required --resources - < scan-findings.json',
    'tests record-result TEST_ID --file run.json --idempotency-key "ci-$CI_PIPELINE_ID"',
  ],
  args: 'TEST_ID',
  positionals: { min: 1, max: 1, name: 'TEST_ID' },
  options: [
    {
      name: 'status',
      kind: 'string',
      values: TEST_RESULT_STATUS,
      valueName: 'STATUS',
      help: `the run's outcome: ${TEST_RESULT_STATUS.join(' or ')}`,
    },
    {
      name: 'scanned-at',
      kind: 'time',
      valueName: 'TIME',
      help: 'when the run happened (epoch ms, ISO date or date-time, now); default: now',
    },
    {
      name: 'resources',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the resources the run checked: a JSON array of {resourceId, name, status, ...} (or {"resources": [...]}); - reads stdin',
    },
    {
      name: 'file',
      short: 'f',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the whole run as a JSON object (- reads stdin); flags override its fields',
    },
    idempotencyKeyOption,
  ],
  notes:
    'The pushed resources replace the test\'s (at most 1,000). A passing run reads "affected" while the test\'s observability integration is failing; an ignored test takes no result (validation_failed, exit 6). Controls and frameworks the test counts for move in the same commit: see `compliance events`. In CI, give --idempotency-key (e.g. the pipeline ID) so a retried job records the run once.',
  async run(ctx, values, [id]) {
    if (values.file !== undefined && values.resources === '-' && values.file === '-')
      throw new UsageError('--file and --resources cannot both read stdin');
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    if (values.status !== undefined) body.status = values.status;
    if (values['scanned-at'] !== undefined) body.scannedAt = values['scanned-at'];
    if (values.resources !== undefined) {
      const value = await readJson(values.resources as string, ctx, '--resources');
      const list = Array.isArray(value)
        ? value
        : typeof value === 'object' && value !== null && Array.isArray((value as { resources?: unknown }).resources)
          ? (value as { resources: unknown[] }).resources
          : undefined;
      if (!list) throw new UsageError('--resources: expected a JSON array of resources, or an object with a "resources" array');
      body.resources = list;
    }
    if (body.status === undefined)
      throw new UsageError(`give the run's outcome with --status ${TEST_RESULT_STATUS.join('|')} (or in --file)`);
    const client = ctx.client();
    const result = await sendWrite(ctx, values, (options) =>
      client.tests.recordResult(id, body as unknown as RecordTestResultBody, options),
    );
    ctx.io.err(`recorded a ${String(body.status)} run of ${result.data.testId}: status ${result.data.status}`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

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
  recordResult,
  testImportCommand,
];
