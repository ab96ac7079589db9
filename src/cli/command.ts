// The shape of a `cds` command: its words, its argument and flags, and what it does. The table
// (commands/index.ts) lists them; the parser (parse-options.ts) and the help (help.ts) read the
// same declarations, so the usage cannot drift from what is accepted.
import type { Config } from '../config.ts';
import type { CliContext } from './context.ts';
import type { CliIo } from './io.ts';

export interface OptionSpec {
  /** `number`: a positive number; `instant`: an ISO 8601 date or date-time, as milliseconds since the epoch */
  type: 'string' | 'boolean' | 'number' | 'instant';
  /** how the usage names the value, e.g. `ORG` */
  value?: string;
  required?: boolean;
  /** for a required flag: an empty value counts as given (an empty plan) */
  emptyAllowed?: boolean;
  help: string;
}

export type OptionValues = Record<string, string | boolean | number | undefined>;

export interface Command {
  /** `org`, or `migrate` for a command without actions */
  group: string;
  /** `create`, `list`, …; absent for a one-word command */
  action?: string;
  summary: string;
  /** the one positional argument, as the usage names it (`ID`); required unless `argumentOptional` */
  argument?: string;
  /** the argument may be left out (`program plan`: PATH, or --oscal-catalog FILE instead) */
  argumentOptional?: boolean;
  /** flag name without dashes → its declaration, in the order the usage lists them */
  options: Record<string, OptionSpec>;
  /** more help, after the options */
  notes?: string;
  /**
   * the command, on the database migrated to the latest version (unless `migrate` is false); a
   * number returned is the exit code (`program plan`: 2 when something would change), else 0
   */
  run?(ctx: CliContext, input: { values: OptionValues; argument?: string }, io: CliIo): Promise<number | undefined>;
  /** false: `run` gets the database as it is, not migrated first (`migrate status` shows what is pending) */
  migrate?: false;
  /** instead of `run`: a command that opens the data files itself (`backup`, `restore`), with the configuration only */
  runOnFiles?(config: Config, input: { values: OptionValues; argument?: string }, io: CliIo): Promise<void>;
  /**
   * instead of `run`: a command that reads no configuration and opens no database (`cds version`),
   * so it answers even where they are broken
   */
  runAlone?(input: { values: OptionValues; argument?: string }, io: CliIo): Promise<void>;
}

export function commandName(command: Pick<Command, 'group' | 'action'>): string {
  return command.action ? `${command.group} ${command.action}` : command.group;
}

export const JSON_OPTION: OptionSpec = { type: 'boolean', help: 'print JSON instead of text' };
export const ORG_OPTION: OptionSpec = { type: 'string', value: 'ORG', required: true, help: 'the organization: its ID or its exact name' };
