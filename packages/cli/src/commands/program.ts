// compliance program plan | apply | export: the organization's program as one document
// (docs/program-documents.md). plan and apply send a YAML or JSON file (or stdin) as it is, so the
// service's problems name its lines: each prints as `FILE:LINE:COLUMN: /pointer message`. plan
// exits 0 when nothing would change and 2 when something would, as `cds program plan` does.
// `--oscal-catalog FILE` sends an OSCAL catalog instead (one framework).
import fs from 'node:fs';
import { UsageError, type OptionSpec, type ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';
import { EXIT } from '../exit-codes.ts';
import { ValidationError, type ProgramPlan } from '../sdk.ts';
import type { Command } from './command.ts';
import { idempotencyKeyOption, sendWrite } from './writes.ts';

/** Most characters of a value shown in the plan; longer ones end with `…`. */
const VALUE_WIDTH = 120;
const shown = (value: unknown) => {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_WIDTH ? `${text.slice(0, VALUE_WIDTH - 1)}…` : text;
};
const SIGN = { create: '+', update: '~', delete: '-' } as const;

/** The plan as a person reads it (the same text as `cds program plan`, src/formats/program/plan-text.ts). */
export function planText(plan: ProgramPlan, applied: boolean): string {
  const total = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
  for (const c of Object.values(plan.counts)) {
    total.created += c.created;
    total.updated += c.updated;
    total.deleted += c.deleted;
    total.unchanged += c.unchanged;
  }
  const verb = applied ? ['created', 'updated', 'deleted'] : ['to create', 'to update', 'to delete'];
  const lines = [
    plan.changed
      ? `${applied ? 'Applied' : 'Plan'}: ${total.created} ${verb[0]}, ${total.updated} ${verb[1]}, ${total.deleted} ${verb[2]} (${total.unchanged} unchanged).`
      : `No changes: the organization already holds this program (${total.unchanged} records unchanged).`,
  ];
  const kinds = Object.entries(plan.counts);
  if (kinds.length > 0) {
    const width = Math.max(...kinds.map(([k]) => k.length));
    lines.push('');
    for (const [kind, c] of kinds)
      lines.push(`  ${kind.padEnd(width)}  ${c.created} created, ${c.updated} updated, ${c.deleted} deleted, ${c.unchanged} unchanged`);
  }
  if (plan.changes.length > 0) {
    lines.push('', applied ? 'Changes:' : 'Changes (+ create, ~ update, - delete):');
    for (const change of plan.changes) {
      lines.push(`  ${SIGN[change.action]} ${change.kind} ${change.key}${change.action === 'delete' ? ` (${change.id})` : ''}`);
      if (change.action === 'update')
        for (const [field, diff] of Object.entries(change.fields ?? {}))
          lines.push(`      ${field}: ${shown((diff as { before?: unknown }).before)} → ${shown((diff as { after?: unknown }).after)}`);
    }
  }
  if (plan.effects.controls.length > 0) {
    lines.push('', 'Controls whose status flips:');
    for (const c of plan.effects.controls) lines.push(`  ${c.key} (${c.controlId}): ${c.before} → ${c.after}`);
  }
  const moves: string[] = [];
  for (const f of plan.effects.frameworks) {
    for (const [part, after] of Object.entries(f.after) as Array<[string, { percentage: number }]>) {
      const before = (f.before as Record<string, { percentage: number }>)[part];
      if (before?.percentage !== after.percentage) moves.push(`  ${f.key} ${part}: ${before?.percentage ?? 0}% → ${after.percentage}%`);
    }
  }
  if (moves.length > 0) lines.push('', 'Framework percentages that move:', ...moves);
  return lines.join('\n');
}

const documentOptions: OptionSpec[] = [
  { name: 'oscal-catalog', kind: 'string', valueName: 'FILE', help: 'an OSCAL 1.x catalog (JSON) instead of FILE: one framework' },
  { name: 'framework-key', kind: 'string', valueName: 'KEY', help: "with --oscal-catalog: the framework's key" },
  { name: 'prune', kind: 'switch', help: 'also delete the records of the kinds the document covers that it does not list' },
];

interface DocumentSource {
  name: string;
  text: string;
  catalog: boolean;
}

async function readDocument(ctx: Context, values: ParsedValues, positionals: string[]): Promise<DocumentSource> {
  const catalog = values['oscal-catalog'] as string | undefined;
  const path = catalog ?? positionals[0];
  if (catalog !== undefined && positionals.length > 0) throw new UsageError('give FILE or --oscal-catalog FILE, not both');
  if (path === undefined) throw new UsageError('give the document: FILE (YAML or JSON, - for stdin), or --oscal-catalog FILE');
  if (catalog !== undefined && values.prune)
    throw new UsageError('--prune cannot go with --oscal-catalog: it would delete the other frameworks');
  let text: string;
  try {
    if (path === '-') {
      text = '';
      for await (const chunk of ctx.io.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    } else {
      if (fs.statSync(path).isDirectory()) throw new UsageError(`${path} is a folder: send one file (cds program reads folders)`);
      text = fs.readFileSync(path, 'utf8');
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  return { name: path === '-' ? 'stdin' : path, text, catalog: catalog !== undefined };
}

/** A refused document: each problem as FILE:LINE:COLUMN: /pointer message, exit 6. */
async function reportRefused(ctx: Context, err: ValidationError, source: DocumentSource): Promise<number> {
  const lines = [`validation_failed: ${err.message}`];
  for (const d of err.details as Array<Record<string, unknown>>) {
    if (typeof d.field !== 'string') continue;
    const at = typeof d.line === 'number' ? `${source.name}:${d.line}:${d.column}` : source.name;
    lines.push(`  ${at}: ${d.field === '' ? '(the document)' : d.field} ${String(d.message)}`);
  }
  if (err.requestId) lines.push(`request ID: ${err.requestId}`);
  ctx.io.err(lines.join('\n'));
  return EXIT.validation;
}

async function runDocument(ctx: Context, values: ParsedValues, positionals: string[], mode: 'plan' | 'apply'): Promise<number> {
  const source = await readDocument(ctx, values, positionals);
  const options = {
    prune: Boolean(values.prune),
    source: source.catalog ? ('oscal-catalog' as const) : ('document' as const),
    frameworkKey: values['framework-key'] as string | undefined,
  };
  const client = ctx.client();
  let plan: ProgramPlan;
  try {
    plan =
      mode === 'plan'
        ? (await client.program.plan(source.text, { ...options, signal: ctx.signal })).data
        : (await sendWrite(ctx, values, (write) => client.program.apply(source.text, { ...options, ...write }))).data;
  } catch (err) {
    if (err instanceof ValidationError) return reportRefused(ctx, err, source);
    throw err;
  }
  // Text unless JSON is asked for by name: the plan is for a person, and its exit status for scripts.
  if (values.output === 'json' || values.output === 'ndjson') await ctx.io.out(JSON.stringify(plan));
  else await ctx.io.out(planText(plan, mode === 'apply'));
  return mode === 'plan' && plan.changed ? EXIT.changes : EXIT.ok;
}

const plan: Command = {
  group: 'program',
  action: 'plan',
  summary: 'what applying a document would change, changing nothing (exit 0: nothing, 2: something)',
  args: '[FILE|-]',
  positionals: { min: 0, max: 1, name: 'FILE' },
  examples: [
    'program plan program.yaml',
    'program plan --oscal-catalog catalog.json --framework-key nist-800-53',
    'program plan program.yaml -o json',
  ],
  options: documentOptions,
  notes:
    'FILE is YAML or JSON (- reads stdin). Exit status 0 when nothing would change, 2 when something would, 6 when the document is refused.',
  run: (ctx, values, positionals) => runDocument(ctx, values, positionals, 'plan'),
};

const apply: Command = {
  group: 'program',
  action: 'apply',
  summary: 'apply a document to the organization, all or nothing',
  args: '[FILE|-]',
  positionals: { min: 0, max: 1, name: 'FILE' },
  examples: ['program apply program.yaml', 'program apply program.yaml --prune --idempotency-key program-2026-11-27'],
  options: [...documentOptions, idempotencyKeyOption],
  notes:
    'Records the document does not list stay, unless --prune (only kinds the document covers). Applying the same document again changes nothing.',
  run: (ctx, values, positionals) => runDocument(ctx, values, positionals, 'apply'),
};

const exportProgram: Command = {
  group: 'program',
  action: 'export',
  summary: "the organization's program as a document (YAML by default)",
  examples: ['program export > program.yaml', 'program export --format json > program.json'],
  options: [
    { name: 'format', kind: 'string', values: ['yaml', 'json'], valueName: 'yaml|json', help: 'the document format (default yaml)' },
  ],
  async run(ctx, values) {
    const format = (values.format as string | undefined) ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw new UsageError(`--format takes yaml or json; not ${format}`);
    const client = ctx.client();
    if (format === 'yaml') await ctx.io.out((await client.program.export({ format: 'yaml', signal: ctx.signal })).trimEnd());
    else await ctx.io.out(JSON.stringify((await client.program.export({ signal: ctx.signal })).data, null, 2));
    return EXIT.ok;
  },
};

export const programCommands: Command[] = [plan, apply, exportProgram];
