// The shape of a command: its words, its options (args.ts) and what it does. The registry
// (commands/index.ts) lists them; the help is rendered from the same declarations.
import type { OptionSpec, ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';

export interface Command {
  /** `controls`, or `export` for a command without actions */
  group: string;
  /** `list`, `get`, …; absent for a one-word command */
  action?: string;
  summary: string;
  /** the positional arguments as the usage line names them, e.g. `CONTROL_ID` */
  args?: string;
  positionals?: { min: number; max: number; name: string };
  options: OptionSpec[];
  /** more help, after the options */
  notes?: string;
  /** command lines shown under "Examples:" in the help (without the leading `compliance `) */
  examples: string[];
  /** a number returned is the exit status (`program plan`: 2 when something would change); otherwise 0 */
  run(ctx: Context, values: ParsedValues, positionals: string[]): Promise<number | undefined>;
}

export function commandName(command: Pick<Command, 'group' | 'action'>): string {
  return command.action ? `${command.group} ${command.action}` : command.group;
}
