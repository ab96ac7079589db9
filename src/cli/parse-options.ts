// Reads a command's argument and flags as the command declares them (command.ts). Every mistake is
// a UsageError (exit 2) naming the flag or argument: an unknown flag (with the nearest known one),
// a missing value, a value that is not a positive number or an instant, a missing required flag or argument, an
// extra argument.
import { parseArgs } from 'node:util';
import { commandName, type Command, type OptionSpec, type OptionValues } from './command.ts';
import { didYouMean } from './suggest.ts';
import { UsageError } from './usage-error.ts';

export function parseOptions(command: Command, args: string[]): { values: OptionValues; argument?: string } {
  const options = Object.fromEntries(
    Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type === 'boolean' ? 'boolean' : 'string' } as const]),
  );
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (err) {
    const code = String((err as { code?: unknown }).code);
    if (!code.startsWith('ERR_PARSE_ARGS')) throw err;
    throw new UsageError(parseErrorMessage(err as Error, code, Object.keys(command.options)));
  }

  const allowed = command.argument ? 1 : 0;
  if (parsed.positionals.length > allowed) throw new UsageError(`Unexpected argument "${parsed.positionals[allowed]}".`);
  const argument = command.argument ? parsed.positionals[0] : undefined;
  const isMissing = (value: string | boolean | undefined, spec?: OptionSpec) =>
    value === undefined || (value === '' && !spec?.emptyAllowed);
  const missing = [
    ...(command.argument && !command.argumentOptional && isMissing(argument) ? [command.argument] : []),
    ...Object.entries(command.options)
      .filter(([name, spec]) => spec.required && isMissing(parsed.values[name], spec))
      .map(([name]) => `--${name}`),
  ];
  if (missing.length) throw new UsageError(`${commandName(command)} needs ${missing.join(' and ')}.`);

  const values: OptionValues = {};
  for (const [name, spec] of Object.entries(command.options)) {
    const raw = parsed.values[name];
    if (raw === undefined) values[name] = raw;
    else if (spec.type === 'number') values[name] = positiveNumber(`--${name}`, raw as string);
    else if (spec.type === 'instant') values[name] = instant(`--${name}`, raw as string);
    else values[name] = raw;
  }
  return { values, argument };
}

function parseErrorMessage(err: Error, code: string, known: string[]): string {
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'(-[^']*)'/.exec(err.message)?.[1];
    if (flag)
      return `Unknown option "${flag}".${didYouMean(
        flag.split('=')[0],
        known.map((name) => `--${name}`),
      )}`;
  }
  // parseArgs goes on to explain how to pass a value starting with "-"; the first sentence is the point.
  return `${err.message.split('. ')[0].replace(/\.$/, '')}.`;
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number.`);
  return n;
}

/** An ISO 8601 date (midnight UTC) or date-time with its offset; Date.parse alone would also take "March 3". */
function instant(flag: string, value: string): number {
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`${flag} must be an ISO 8601 date or date-time, like 2027-03-01 or 2027-03-01T09:00:00Z.`);
  return at;
}
