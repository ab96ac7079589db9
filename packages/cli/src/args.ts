// Flags as data: each command declares its options once, and the same declarations parse the
// command line (node:util parseArgs, strict), build the API query and render the help. Values the
// CLI must convert (numbers, booleans, dates) are checked here and refused as usage errors (exit 2);
// values it passes through (filter lists) are left for the service to judge, so an unknown status
// is the service's 400 (exit 6) and the CLI never falls behind the API's allowed values.
import { parseArgs } from 'node:util';
import { didYouMean } from './suggest.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export type OptionKind =
  /** comma-separated values, repeatable: `--status open,closed --status risk` */
  | 'list'
  /** one value; the last one given wins unless `repeatable` */
  | 'string'
  /** true/false (also 1/0, yes/no) */
  | 'boolean'
  /** a whole number */
  | 'integer'
  /** epoch milliseconds, or an ISO date / date-time, or `now` */
  | 'time'
  /** present or not, takes no value */
  | 'switch';

export interface OptionSpec {
  /** the flag without dashes, kebab-case */
  name: string;
  kind: OptionKind;
  /** the API query parameter it fills; unset when the command uses the value itself */
  param?: string;
  /** the values the API allows, for the help text only */
  values?: readonly string[];
  short?: string;
  /** how the help names the value (default: derived from kind) */
  valueName?: string;
  /** for `string`: every occurrence is kept, in order */
  repeatable?: boolean;
  help: string;
}

export type OptionValue = string | string[] | number | boolean;
export type ParsedValues = Record<string, OptionValue | undefined>;

export const camelCase = (kebab: string) => kebab.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A list filter whose flag is the kebab-case form of its query parameter. */
export function listFilter(name: string, help: string, values?: readonly string[]): OptionSpec {
  return { name, kind: 'list', param: camelCase(name), values, help };
}

/** The first one or two words that name the command, wherever global flags sit around them. */
export function splitCommand(
  argv: string[],
  takesValue: (flag: string) => boolean,
  hasActions: (group: string) => boolean,
): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const needsWord = words.length === 0 || (words.length === 1 && hasActions(words[0]));
    if (arg.startsWith('-') && arg !== '-') {
      rest.push(arg);
      if (!arg.includes('=') && takesValue(arg) && i + 1 < argv.length) rest.push(argv[++i]);
      continue;
    }
    if (needsWord) words.push(arg);
    else rest.push(arg);
  }
  return { words, rest };
}

/** Parses `args` against `specs` and converts every value; a bad flag or value is a UsageError. */
export function parseOptions(
  args: string[],
  specs: OptionSpec[],
  positionals: { min: number; max: number; name: string },
): { values: ParsedValues; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const spec of specs) {
    options[spec.name] = { type: spec.kind === 'switch' ? 'boolean' : 'string' };
    if (spec.kind === 'list' || spec.repeatable) options[spec.name].multiple = true;
    if (spec.short) options[spec.name].short = spec.short;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const code = String((err as { code?: unknown }).code);
    if (code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(parseErrorMessage(err, code, specs));
    throw err;
  }
  if (parsed.positionals.length < positionals.min) throw new UsageError(`missing ${positionals.name}`);
  if (parsed.positionals.length > positionals.max) throw new UsageError(`unexpected argument "${parsed.positionals[positionals.max]}"`);
  const values: ParsedValues = {};
  for (const spec of specs) {
    const raw = parsed.values[spec.name];
    if (raw === undefined) continue;
    values[spec.name] = convert(spec, raw as string | string[] | boolean);
  }
  return { values, positionals: parsed.positionals };
}

function parseErrorMessage(err: unknown, code: string, specs: OptionSpec[]): string {
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'(-[^']*)'/.exec(message)?.[1];
    if (flag)
      return `unknown option "${flag}".${didYouMean(
        flag.split('=')[0],
        specs.map((s) => `--${s.name}`),
      )}`;
  }
  // parseArgs explains how to pass a value starting with "-"; the first sentence is the point.
  return message.split('. To specify')[0].replace(/\.$/, '');
}

function convert(spec: OptionSpec, raw: string | string[] | boolean): OptionValue {
  const flag = `--${spec.name}`;
  switch (spec.kind) {
    case 'switch':
      return raw as boolean;
    case 'list':
      return splitList(raw as string[]);
    case 'string':
      return spec.repeatable ? (raw as string[]) : (raw as string);
    case 'boolean':
      return parseBoolean(flag, raw as string);
    case 'integer':
      return parseInteger(flag, raw as string);
    case 'time':
      return parseTime(flag, raw as string);
  }
}

/** `a,b --x c` → [a, b, c]; blanks around commas are ignored, empty entries dropped. */
export function splitList(values: string[]): string[] {
  return values
    .flatMap((value) => value.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function parseBoolean(flag: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new UsageError(`${flag} takes true or false, not "${value}"`);
}

export function parseInteger(flag: string, value: string): number {
  const v = value.trim();
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${flag} takes a whole number, not "${value}"`);
  return Number(v);
}

/** Epoch milliseconds as the API wants them, from ms, an ISO date (UTC midnight), an ISO date-time, or `now`. */
export function parseTime(flag: string, value: string, now: () => number = Date.now): number {
  const v = value.trim();
  if (/^-?\d+$/.test(v)) return parseInteger(flag, v);
  if (v.toLowerCase() === 'now') return now();
  const date = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(date))
    throw new UsageError(`${flag} takes epoch milliseconds, an ISO date (2026-03-31) or date-time, or "now"; not "${value}"`);
  return date;
}

/** The API query of a command: every option that names a parameter and was given. */
export function queryFrom(specs: OptionSpec[], values: ParsedValues): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const spec of specs) {
    if (spec.param && values[spec.name] !== undefined) query[spec.param] = values[spec.name];
  }
  return query;
}

/** One line per option for the help text. */
export function describeOptions(specs: OptionSpec[]): string {
  const rows = specs.map((spec) => {
    const value = spec.kind === 'switch' ? '' : ` ${spec.valueName ?? defaultValueName(spec)}`;
    const name = `${spec.short ? `-${spec.short}, ` : ''}--${spec.name}${value}`;
    const allowed = spec.values ? ` (${spec.values.join(', ')})` : '';
    return [name, `${spec.help}${allowed}`];
  });
  const width = Math.min(36, Math.max(...rows.map(([name]) => name.length)));
  return rows
    .map(([name, help]) => (name.length > width ? `  ${name}\n  ${' '.repeat(width)}  ${help}` : `  ${name.padEnd(width)}  ${help}`))
    .join('\n');
}

function defaultValueName(spec: OptionSpec): string {
  switch (spec.kind) {
    case 'list':
      return 'A,B…';
    case 'boolean':
      return 'true|false';
    case 'integer':
      return 'N';
    case 'time':
      return 'MS|DATE';
    default:
      return 'VALUE';
  }
}
