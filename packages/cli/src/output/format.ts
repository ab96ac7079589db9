// The three output formats. A terminal gets a table; a pipe or file gets JSON, so scripts never
// have to ask for it.
import { UsageError } from '../args.ts';

export const FORMATS = ['json', 'table', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

export function chooseFormat(flag: string | undefined, stdoutIsTty: boolean): Format {
  if (flag === undefined) return stdoutIsTty ? 'table' : 'json';
  if (!(FORMATS as readonly string[]).includes(flag)) throw new UsageError(`--output takes ${FORMATS.join(', ')}; not "${flag}"`);
  return flag as Format;
}
