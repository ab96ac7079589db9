// `<resource> list` and `<resource> get ID` for the resources that answer in one response
// (frameworks, controls, policies, evidence, tests): options → query → SDK call → output.
import { listFilter, queryFrom, type OptionSpec } from '../args.ts';
import type { Context } from '../context.ts';
import type { Resource } from '../output/columns.ts';
import { writeList, writeRecord } from '../output/writer.ts';
import type { ComplianceClient, RequestOptions } from '../sdk.ts';
import type { Command } from './command.ts';

type Query = Record<string, unknown>;

export function fieldsOption(values: readonly string[], what = 'optional fields to include'): OptionSpec {
  return listFilter('fields', what, values);
}

export function listCommand(spec: {
  resource: Resource;
  summary: string;
  options: OptionSpec[];
  examples: string[];
  fetch(client: ComplianceClient, query: Query, options: RequestOptions): Promise<{ data: unknown[] }>;
}): Command {
  return {
    group: spec.resource,
    action: 'list',
    summary: spec.summary,
    options: spec.options,
    examples: spec.examples,
    async run(ctx: Context, values) {
      const result = await spec.fetch(ctx.client(), queryFrom(spec.options, values), { signal: ctx.signal });
      await writeList(ctx.io, ctx.format, spec.resource, result.data, values.fields as string[] | undefined);
    },
  };
}

export function getCommand(spec: {
  resource: Resource;
  summary: string;
  idName: string;
  options: OptionSpec[];
  examples: string[];
  fetch(client: ComplianceClient, id: string, query: Query, options: RequestOptions): Promise<{ data: unknown }>;
}): Command {
  return {
    group: spec.resource,
    action: 'get',
    summary: spec.summary,
    examples: spec.examples,
    args: spec.idName,
    positionals: { min: 1, max: 1, name: spec.idName },
    options: spec.options,
    async run(ctx: Context, values, [id]) {
      const result = await spec.fetch(ctx.client(), id, queryFrom(spec.options, values), { signal: ctx.signal });
      await writeRecord(ctx.io, ctx.format, result.data);
    },
  };
}
