// From the command line to a finished command, as `gh` does it: `cds help [COMMAND]`, `--help`
// or `-h` at any level print that level's help to stdout; otherwise find the command (suggesting
// the nearest name on a typo), read its flags, then open the database and run it. A mistake throws
// a UsageError carrying the help of the level it was made at; main.ts reports it.
import type { Command } from './command.ts';
import { GROUPS, groupCommands } from './commands/index.ts';
import { loadConfig } from '../config.ts';
import { withCliContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { commandHelp, groupHelp, mainHelp } from './help.ts';
import type { CliIo } from './io.ts';
import { parseOptions } from './parse-options.ts';
import { didYouMean } from './suggest.ts';
import { UsageError } from './usage-error.ts';

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

export async function run(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [group, ...rest] = argv;
  if (group === undefined) {
    io.out(mainHelp());
    return EXIT.usage;
  }
  if (group === '--version') return run(['version', ...rest], env, io);
  if (group === 'help' || isHelp(group)) {
    io.out(helpFor(rest.filter((arg) => !isHelp(arg))));
    return EXIT.ok;
  }
  const commands = commandsOf(group);
  const hasActions = commands[0].action !== undefined;
  if (hasActions && (rest[0] === undefined || rest[0].startsWith('-'))) {
    if (rest.some(isHelp)) {
      io.out(groupHelp(group));
      return EXIT.ok;
    }
    throw new UsageError(`${group} needs a command: ${commands.map((c) => c.action).join(', ')}.`, groupHelp(group));
  }
  // a one-word command may have actions too (`migrate`, `migrate status`)
  const action = hasActions ? rest[0] : commands.find((c) => c.action !== undefined && c.action === rest[0])?.action;
  const command = action !== undefined ? commandOf(group, action) : commands[0];
  const args = action !== undefined ? rest.slice(1) : rest;
  if (args.some(isHelp)) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  let input;
  try {
    input = parseOptions(command, args);
  } catch (err) {
    if (err instanceof UsageError) err.usage ??= commandHelp(command);
    throw err;
  }
  if (command.runAlone) await command.runAlone(input, io);
  else if (command.runOnFiles) await command.runOnFiles(loadConfig(env), input, io);
  else {
    const code = await withCliContext(env, (ctx) => command.run!(ctx, input, io), { migrate: command.migrate ?? true });
    if (typeof code === 'number') return code;
  }
  return EXIT.ok;
}

function helpFor([group, action]: string[]): string {
  if (group === undefined) return mainHelp();
  const commands = commandsOf(group);
  if (commands[0].action === undefined)
    return commandHelp(commands.find((c) => action !== undefined && c.action === action) ?? commands[0]);
  return action === undefined ? groupHelp(group) : commandHelp(commandOf(group, action));
}

function commandsOf(group: string): Command[] {
  const commands = groupCommands(group);
  if (commands.length === 0) throw new UsageError(`Unknown command "${group}".${didYouMean(group, GROUPS)}`, mainHelp());
  return commands;
}

function commandOf(group: string, action: string): Command {
  const commands = groupCommands(group);
  const command = commands.find((c) => c.action === action);
  if (!command)
    throw new UsageError(
      `Unknown ${group} command "${action}".${didYouMean(
        action,
        commands.map((c) => c.action!),
      )}`,
      groupHelp(group),
    );
  return command;
}
