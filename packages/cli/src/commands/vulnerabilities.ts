// compliance vulnerabilities list | get | create | update | import (commands/vulnerabilities-import.ts)
// The list is the one paged endpoint: it walks every page (or stops at --limit), writing each
// page as it arrives in json/ndjson, pacing itself to the rate limit, and checks the total
// against meta.totalCount at the end as the spec asks.
import { listFilter, queryFrom, UsageError, type OptionSpec, type ParsedValues } from '../args.ts';
import { listWriter, writeRecord } from '../output/writer.ts';
import { progressBar } from '../progress.ts';
import { RatePacer } from '../rate-pacer.ts';
import {
  TotalCountMismatchError,
  type CreateVulnerabilityBody,
  type GetVulnerabilityQuery,
  type UpdateVulnerabilityBody,
  type VulnerabilityListQuery,
} from '../sdk.ts';
import {
  FIX_AVAILABLE,
  GET_FIELDS,
  LIST_FIELDS,
  PAGE_SIZES,
  SEVERITY,
  SOURCE,
  VULNERABILITY_CREATE_STATUS,
  VULNERABILITY_STATUS,
} from '../vocabulary.ts';
import type { Command } from './command.ts';
import { fieldsOption } from './reads.ts';
import { vulnerabilityImportCommand } from './vulnerabilities-import.ts';
import { idempotencyKeyOption, readJsonObject, sendWrite } from './writes.ts';

export const VULNERABILITY_FILTERS: OptionSpec[] = [
  listFilter('status', 'status', VULNERABILITY_STATUS),
  listFilter('severity', 'severity', SEVERITY),
  listFilter('source', 'source', SOURCE),
  listFilter('fix-available', 'whether a fix is available', FIX_AVAILABLE),
];

export const pageSizeOption: OptionSpec = {
  name: 'page-size',
  kind: 'integer',
  valueName: '50|100',
  help: 'findings per request (default 100: the fewest requests)',
};

export function pageSize(values: ParsedValues, fallback: number = PAGE_SIZES[PAGE_SIZES.length - 1]): 50 | 100 {
  const size = (values['page-size'] as number | undefined) ?? fallback;
  if (!(PAGE_SIZES as readonly number[]).includes(size)) throw new UsageError(`--page-size takes ${PAGE_SIZES.join(' or ')}; not ${size}`);
  return size as 50 | 100;
}

const listOptions: OptionSpec[] = [
  ...VULNERABILITY_FILTERS,
  fieldsOption(LIST_FIELDS.vulnerabilities),
  pageSizeOption,
  { name: 'limit', kind: 'integer', help: 'stop after this many findings (default: every page)' },
];

const list: Command = {
  group: 'vulnerabilities',
  action: 'list',
  summary: 'findings, every page (or --limit N)',
  examples: [
    'vulns list --severity critical --status open',
    'vulns list --limit 3 -o ndjson',
    'vulns list --fields cvssScore,firstSeen -o json > findings.json',
  ],
  options: listOptions,
  async run(ctx, values) {
    const limit = values.limit as number | undefined;
    if (limit !== undefined && limit < 1) throw new UsageError('--limit must be 1 or more');
    // A small --limit needs no more than the small page.
    const size = pageSize(values, limit !== undefined && limit <= PAGE_SIZES[0] ? PAGE_SIZES[0] : undefined);
    const query = { ...queryFrom(VULNERABILITY_FILTERS, values), fields: values.fields, count: size } as VulnerabilityListQuery;
    const writer = listWriter(ctx.io, ctx.format, 'vulnerabilities', values.fields as string[] | undefined);
    const pacer = new RatePacer();
    // A long walk shows how far it is, on stderr; not while JSON lines stream to the same terminal.
    const progress = progressBar('vulnerabilities', {
      enabled: ctx.progress && (ctx.format === 'table' || !ctx.io.stdoutIsTty),
      stream: ctx.io.stderr,
    });
    ctx.showing(progress);
    const onWait = (ms: number) => ctx.notice(`waiting ${Math.ceil(ms / 1000)} s for the rate-limit window`);
    let written = 0;
    let totalCount = 0;
    let stopped = false;
    try {
      for await (const page of ctx.client().vulnerabilities.list(query, { signal: ctx.signal }).pages()) {
        pacer.observe(page.response.headers);
        totalCount = page.meta.totalCount;
        for (const finding of page.data) {
          if (limit !== undefined && written >= limit) break;
          await writer.write(finding);
          written++;
        }
        progress.update(written, limit === undefined ? totalCount : Math.min(limit, totalCount));
        if (limit !== undefined && written >= limit) {
          stopped = true;
          break;
        }
        if (page.meta.nextCursor !== null) await pacer.wait(ctx.signal, onWait);
      }
      progress.finish();
    } catch (err) {
      progress.abandon();
      throw err;
    } finally {
      ctx.showing(undefined);
    }
    await writer.end();
    if (!stopped && written !== totalCount) throw new TotalCountMismatchError(totalCount, written);
  },
};

const getOptions: OptionSpec[] = [
  listFilter('resource-status', 'affected resources to show, by status (default open,risk)', VULNERABILITY_STATUS),
  fieldsOption(GET_FIELDS.vulnerabilities, 'expansions to include'),
];

const get: Command = {
  group: 'vulnerabilities',
  action: 'get',
  summary: 'one finding (the ID as listed, e.g. api%23VUL-0001, or api#VUL-0001)',
  examples: ["vulns get 'api%23VUL-9050' --fields affectedResources", "vulns get 'api#VUL-9050' --resource-status open,risk,closed"],
  args: 'VULNERABILITY_ID',
  positionals: { min: 1, max: 1, name: 'VULNERABILITY_ID' },
  options: getOptions,
  async run(ctx, values, [id]) {
    const query = queryFrom(getOptions, values) as GetVulnerabilityQuery;
    const result = await ctx.client().vulnerabilities.get(id, query, { signal: ctx.signal });
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

const createFields: Array<OptionSpec & { body: keyof CreateVulnerabilityBody }> = [
  { name: 'vulnerability-id', kind: 'string', body: 'vulnerabilityId', valueName: 'ID', help: 'VUL-#### or CVE-YYYY-NNNN (required)' },
  { name: 'title', kind: 'string', body: 'title', valueName: 'TEXT', help: 'title (required)' },
  { name: 'severity', kind: 'string', body: 'severity', values: SEVERITY, help: 'severity (required)' },
  { name: 'status', kind: 'string', body: 'status', values: VULNERABILITY_CREATE_STATUS, help: 'status (required)' },
  { name: 'description', kind: 'string', body: 'description', valueName: 'TEXT', help: 'at most 750 characters' },
  { name: 'remediation', kind: 'string', body: 'remediation', valueName: 'TEXT', help: 'at most 750 characters' },
  { name: 'steps-to-reproduce', kind: 'string', body: 'stepsToReproduce', valueName: 'TEXT', help: 'at most 750 characters' },
  { name: 'fix-available', kind: 'string', body: 'fixAvailable', values: FIX_AVAILABLE, help: 'whether a fix is available' },
  { name: 'first-seen', kind: 'time', body: 'firstSeen', help: 'when the finding was first seen' },
  { name: 'assignee-email', kind: 'string', body: 'assigneeEmail', valueName: 'EMAIL', help: 'the assignee, a person of the organization' },
];

const create: Command = {
  group: 'vulnerabilities',
  action: 'create',
  summary: 'create a finding (source api)',
  examples: [
    'vulns create --file examples/finding.json --idempotency-key create-vul-9050',
    "vulns create --vulnerability-id VUL-9051 --title 'Exposed admin panel' --severity critical --status open",
    'cat finding.json | compliance vulns create --file -',
  ],
  options: [
    {
      name: 'file',
      short: 'f',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the finding as a JSON object (- reads stdin); flags override its fields',
    },
    ...createFields,
    {
      name: 'affected-resource',
      kind: 'string',
      repeatable: true,
      valueName: 'JSON',
      help: 'an affected resource, e.g. \'{"name":"edge-1","type":"vm","tags":["prod"]}\'; repeat for more',
    },
    idempotencyKeyOption,
  ],
  notes: 'The service validates the finding; an invalid one is refused with validation_failed (exit 6).',
  async run(ctx, values) {
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    for (const spec of createFields) if (values[spec.name] !== undefined) body[spec.body] = values[spec.name];
    const resources = values['affected-resource'] as string[] | undefined;
    if (resources) body.affectedResources = resources.map(parseAffectedResource);
    if (Object.keys(body).length === 0)
      throw new UsageError('give the finding with --file, or with --vulnerability-id, --title, --severity and --status');
    const client = ctx.client();
    const result = await sendWrite(ctx, values, (options) =>
      client.vulnerabilities.create(body as unknown as CreateVulnerabilityBody, options),
    );
    ctx.io.err(`created ${result.data.vulnerabilityId}`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

function parseAffectedResource(text: string): unknown {
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  throw new UsageError(`--affected-resource takes a JSON object such as '{"name":"edge-1","type":"vm","tags":["prod"]}'; not ${text}`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const update: Command = {
  group: 'vulnerabilities',
  action: 'update',
  summary: 'change the assignee, report link or custom fields of a finding',
  examples: [
    "vulns update 'api%23VUL-9050' --report-link https://reports.example.com/9050",
    "vulns update 'api%23VUL-9050' --assignee-email ada@example.com --custom-field 'Business unit=Payments'",
    "vulns update 'api%23VUL-9050' --report-link ''",
  ],
  args: 'VULNERABILITY_ID',
  positionals: { min: 1, max: 1, name: 'VULNERABILITY_ID' },
  options: [
    { name: 'assignee-email', kind: 'string', valueName: 'EMAIL', help: 'the new assignee' },
    { name: 'report-link', kind: 'string', valueName: 'URL', help: 'an http(s) URL; "" clears it' },
    {
      name: 'custom-field',
      kind: 'string',
      repeatable: true,
      valueName: 'FIELD=VALUE',
      help: 'a custom field by its ID or its title (case-insensitive); repeat for more',
    },
    {
      name: 'file',
      short: 'f',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the change as a JSON object (- reads stdin); flags override its fields',
    },
    idempotencyKeyOption,
  ],
  notes: 'Status and source cannot be changed. A custom field named by title costs one extra request to look its ID up.',
  async run(ctx, values, [id]) {
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    if (values['assignee-email'] !== undefined) body.assigneeEmail = values['assignee-email'];
    if (values['report-link'] !== undefined) body.reportLink = values['report-link'];
    const client = ctx.client();
    const fields = ((values['custom-field'] as string[] | undefined) ?? []).map(parseCustomField);
    if (fields.length > 0) {
      const titled = fields.filter((f) => !UUID.test(f.key));
      let byTitle = new Map<string, string>();
      if (titled.length > 0) {
        const { data } = await client.vulnerabilities.get(id, undefined, { signal: ctx.signal });
        byTitle = new Map(data.customFields.map((f) => [f.title.toLowerCase(), f.customFieldId]));
        for (const f of titled) {
          if (!byTitle.has(f.key.toLowerCase())) {
            throw new UsageError(
              `--custom-field: this finding has no custom field "${f.key}"; its fields: ${data.customFields.map((c) => c.title).join(', ') || 'none'}`,
            );
          }
        }
      }
      body.customFields = fields.map((f) => ({
        customFieldId: UUID.test(f.key) ? f.key : byTitle.get(f.key.toLowerCase())!,
        fieldValue: f.value,
      }));
    }
    if (Object.keys(body).length === 0)
      throw new UsageError('nothing to change: give --assignee-email, --report-link, --custom-field or --file');
    const result = await sendWrite(ctx, values, (options) => client.vulnerabilities.update(id, body as UpdateVulnerabilityBody, options));
    ctx.io.err(`updated ${result.data.vulnerabilityId}`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

function parseCustomField(text: string): { key: string; value: string } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`--custom-field takes FIELD=VALUE (a field ID or title); not "${text}"`);
  return { key: text.slice(0, eq).trim(), value: text.slice(eq + 1) };
}

export const vulnerabilityCommands: Command[] = [list, get, create, update, vulnerabilityImportCommand];
