// The help texts, rendered from the command table so they cannot drift from the parser.
import { commandName, type Command } from './command.ts';
import { COMMANDS, groupCommands } from './commands/index.ts';
import { EXIT_CODE_HELP } from './exit-codes.ts';

/** `org update ORG --plan RESOURCES [--json]`: the argument, then required flags bare, others in brackets. */
export function usageLine(command: Command): string {
  const flags = Object.entries(command.options).map(([name, spec]) => {
    const flag = spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? 'VALUE'}`;
    return spec.required ? flag : `[${flag}]`;
  });
  const argument = command.argument && command.argumentOptional ? `[${command.argument}]` : command.argument;
  return [commandName(command), argument, ...flags].filter(Boolean).join(' ');
}

function commandList(commands: Command[]): string {
  const width = 48;
  return commands
    .map((c) => {
      const usage = usageLine(c);
      return usage.length > width ? `  ${usage}\n  ${' '.repeat(width)}  ${c.summary}` : `  ${usage.padEnd(width)}  ${c.summary}`;
    })
    .join('\n');
}

export function mainHelp(): string {
  return `Usage: cds <command> [options]

Commands:
${commandList(COMMANDS)}

"cds <command> --help" (or "cds help <command>") shows a command's options. ORG is an
organization's ID or its exact name.

The database is DATABASE_URL (PostgreSQL) when set, else the embedded SQLite file
(SQLITE_PATH, default ./data/cds.sqlite). REGION sets the region of new records.

${EXIT_CODE_HELP}`;
}

export function groupHelp(group: string): string {
  return `Usage: cds ${group} <command> [options]

Commands:
${commandList(groupCommands(group))}

"cds ${group} <command> --help" shows a command's options.`;
}

export function commandHelp(command: Command): string {
  const rows = [...Object.entries(command.options), ['help', { type: 'boolean', help: 'show this help' }] as const].map(([name, spec]) => [
    spec.type === 'boolean' ? `${name === 'help' ? '-h, ' : ''}--${name}` : `--${name} ${spec.value ?? 'VALUE'}`,
    spec.help + ('required' in spec && spec.required ? ' (required)' : ''),
  ]);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return `Usage: cds ${usageLine(command)}

${command.summary[0].toUpperCase()}${command.summary.slice(1)}.

Options:
${rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`).join('\n')}${command.notes ? `\n\n${command.notes}` : ''}`;
}
