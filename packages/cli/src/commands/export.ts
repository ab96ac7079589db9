// compliance export --dir DIR [--resources …]
// One `<resource>.ndjson` per resource, each record as its list returns it with every optional
// list field. A file is written under a temporary name and renamed only when complete, so DIR
// never holds a half-written export under the final name (an interrupted or failed run removes
// its temporary file). Findings are streamed page by page to disk, never held whole; the walk is
// paced to the rate limit (rate-pacer.ts) and checked against meta.totalCount.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../args.ts';
import type { Context } from '../context.ts';
import { RESOURCES, type Resource } from '../output/columns.ts';
import { jsonDocument } from '../output/json.ts';
import { ndjsonLine } from '../output/ndjson.ts';
import { renderTable } from '../output/table.ts';
import { progressBar, type Progress } from '../progress.ts';
import { RatePacer } from '../rate-pacer.ts';
import { PermissionDeniedError, TotalCountMismatchError, type ComplianceClient, type RequestOptions } from '../sdk.ts';
import { LIST_FIELDS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { pageSize, pageSizeOption } from './vulnerabilities.ts';

interface Exported {
  resource: Resource;
  file?: string;
  records?: number;
  skipped?: string;
}

type WholeList = (client: ComplianceClient, options: RequestOptions) => Promise<{ data: unknown[]; response: { headers: Headers } }>;

/** The lists that come in one response, each asked for every optional field. */
const WHOLE_LISTS: Record<Exclude<Resource, 'vulnerabilities'>, WholeList> = {
  frameworks: (c, o) => c.frameworks.list({ fields: [...LIST_FIELDS.frameworks] }, o),
  controls: (c, o) => c.controls.list({ fields: [...LIST_FIELDS.controls] }, o),
  policies: (c, o) => c.policies.list({ fields: [...LIST_FIELDS.policies] }, o),
  evidence: (c, o) => c.evidence.list({ fields: [...LIST_FIELDS.evidence] }, o),
  tests: (c, o) => c.tests.list({ fields: [...LIST_FIELDS.tests] }, o),
};

/** Lines per write call: few system calls, little memory. */
const BATCH = 500;

export const exportCommand: Command = {
  group: 'export',
  summary: 'write every resource to DIR/<resource>.ndjson',
  examples: ['export --dir ./export', 'export --dir ./export --resources controls,vulnerabilities --no-progress'],
  options: [
    {
      name: 'dir',
      short: 'd',
      kind: 'string',
      valueName: 'DIR',
      help: 'where to write (created when missing; existing files are replaced) (required)',
    },
    {
      name: 'resources',
      kind: 'list',
      values: RESOURCES,
      help: 'which resources (default: all; those the plan excludes are then skipped)',
    },
    pageSizeOption,
  ],
  notes: 'Records are the list shapes with every optional list field. The summary goes to stdout in the --output format.',
  async run(ctx, values) {
    const dir = values.dir as string | undefined;
    if (!dir) throw new UsageError('--dir is required');
    const chosen = values.resources as string[] | undefined;
    for (const r of chosen ?? []) {
      if (!(RESOURCES as readonly string[]).includes(r))
        throw new UsageError(`--resources: unknown resource "${r}"; known: ${RESOURCES.join(', ')}`);
    }
    const resources = RESOURCES.filter((r) => !chosen || chosen.includes(r));
    const size = pageSize(values);
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new UsageError(`--dir: cannot create ${dir}: ${(err as Error).message}`);
    }

    const client = ctx.client();
    const pacer = new RatePacer();
    const results: Exported[] = [];
    const labelWidth = Math.max(...resources.map((r) => r.length));
    for (const resource of resources) {
      const progress = progressBar(resource.padEnd(labelWidth), { enabled: ctx.progress, stream: ctx.io.stderr });
      const onWait = (ms: number) => progress.note(`waiting ${Math.ceil(ms / 1000)} s for the rate-limit window`);
      ctx.showing(progress); // retry notices go through the bar
      try {
        const records = await exportOne(ctx, client, resource, dir, { pacer, progress, onWait, pageSize: size });
        progress.finish();
        ctx.showing(undefined);
        results.push({ resource, file: path.resolve(dir, fileName(resource)), records });
      } catch (err) {
        progress.abandon();
        ctx.showing(undefined);
        // "Every resource" means every resource the plan includes; a resource asked for by name is an error.
        if (!chosen && err instanceof PermissionDeniedError && err.code === 'plan_restricted') {
          ctx.io.err(`skipped ${resource}: the organization's plan does not include it`);
          results.push({ resource, skipped: 'plan_restricted' });
          continue;
        }
        throw err;
      }
    }
    await printSummary(ctx, path.resolve(dir), results);
  },
};

const fileName = (resource: Resource) => `${resource}.ndjson`;

async function exportOne(
  ctx: Context,
  client: ComplianceClient,
  resource: Resource,
  dir: string,
  run: { pacer: RatePacer; progress: Progress; onWait: (ms: number) => void; pageSize: 50 | 100 },
): Promise<number> {
  const final = path.join(dir, fileName(resource));
  const temp = path.join(dir, `.${fileName(resource)}.${process.pid}.partial`);
  const file = await fs.promises.open(temp, 'w');
  let complete = false;
  try {
    let written = 0;
    const writeLines = async (records: unknown[]) => {
      for (let i = 0; i < records.length; i += BATCH) {
        await file.write(
          records
            .slice(i, i + BATCH)
            .map(ndjsonLine)
            .join(''),
        );
      }
      written += records.length;
    };
    const options = { signal: ctx.signal };
    if (resource === 'vulnerabilities') {
      let totalCount = 0;
      await run.pacer.wait(ctx.signal, run.onWait);
      for await (const page of client.vulnerabilities
        .list({ fields: [...LIST_FIELDS.vulnerabilities], count: run.pageSize }, options)
        .pages()) {
        run.pacer.observe(page.response.headers);
        totalCount = page.meta.totalCount;
        await writeLines(page.data);
        run.progress.update(written, totalCount);
        if (page.meta.nextCursor !== null) await run.pacer.wait(ctx.signal, run.onWait);
      }
      if (written !== totalCount) throw new TotalCountMismatchError(totalCount, written);
    } else {
      await run.pacer.wait(ctx.signal, run.onWait);
      const result = await WHOLE_LISTS[resource](client, options);
      run.pacer.observe(result.response.headers);
      await writeLines(result.data);
      run.progress.update(written, result.data.length);
    }
    await file.sync();
    await file.close();
    await fs.promises.rename(temp, final);
    complete = true;
    return written;
  } finally {
    if (!complete) {
      await file.close().catch(() => {});
      await fs.promises.rm(temp, { force: true });
    }
  }
}

async function printSummary(ctx: Context, directory: string, results: Exported[]): Promise<void> {
  if (ctx.format === 'json') {
    await ctx.io.out(jsonDocument({ directory, resources: results }));
  } else if (ctx.format === 'ndjson') {
    for (const r of results) await ctx.io.out(ndjsonLine(r));
  } else {
    const rows = results.map((r) => [r.resource, r.skipped ? '-' : String(r.records), r.skipped ? `skipped (${r.skipped})` : r.file!]);
    await ctx.io.out(renderTable(['RESOURCE', 'RECORDS', 'FILE'], rows));
  }
}
