// From the command line to a finished command: find the command words, parse its options with
// the global ones, build the context, run it. Errors propagate to main.ts, which reports them.
import { parseOptions, splitCommand, UsageError } from './args.ts';
import { commandName } from './commands/command.ts';
import { COMMANDS, findCommand, GROUP_ALIASES, groupCommands, hasActions } from './commands/index.ts';
import { createContext, GLOBAL_OPTIONS } from './context.ts';
import { commandHelp, groupHelp, mainHelp } from './help.ts';
import type { Io } from './io.ts';
import type { Env } from './profile.ts';
import { closest, didYouMean } from './suggest.ts';
import { explainUnreachable } from './unreachable.ts';
import pkg from '../package.json' with { type: 'json' };

const VALUE_FLAGS = new Set(
  GLOBAL_OPTIONS.filter((o) => o.kind !== 'switch').flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]),
);

export async function run(argv: string[], env: Env, io: Io, signal: AbortSignal): Promise<number> {
  const { words, rest } = splitCommand(argv, (flag) => VALUE_FLAGS.has(flag), hasActions);
  const wantsHelp = rest.includes('--help') || rest.includes('-h');

  if (words[0] === 'help')
    return help(
      rest.filter((a) => !a.startsWith('-')),
      io,
    );
  if (words.length === 0) {
    if (rest.includes('--version')) {
      await io.out(`compliance ${pkg.version}\n`);
      return 0;
    }
    // Bare `compliance` is asking what it can do, as `gh` and `git` take it: the help, on stdout.
    if (argv.length === 0 || wantsHelp) {
      await io.out(mainHelp());
      return 0;
    }
    // Flags without a command: a mistyped one is named (with the nearest known), else a command is missing.
    parseOptions(rest, [...GLOBAL_OPTIONS, { name: 'version', kind: 'switch', help: '' }], { min: 0, max: 0, name: '' });
    throw new UsageError(`which command? ${commandList()}`);
  }

  const [group, action] = words;
  const commands = groupCommands(group);
  if (commands.length === 0) {
    // `--profle x`: the mistyped flag, not its value taken for a command, is what to point at.
    parseOptions(argv.slice(0, argv.indexOf(group)), GLOBAL_OPTIONS, { min: 0, max: 1, name: '' });
    throw new UsageError(unknownCommand(group));
  }
  if (hasActions(group) && action === undefined) {
    if (wantsHelp) {
      await io.out(groupHelp(group, commands));
      return 0;
    }
    throw new UsageError(`"${group}" needs an action: ${commands.map((c) => c.action).join(', ')}`);
  }
  const command = findCommand(group, action);
  if (!command) {
    const actions = commands.map((c) => c.action!);
    const nearest = closest(action, actions);
    throw new UsageError(
      `unknown command "${group} ${action}"; ${group} has ${actions.join(', ')}.${nearest ? ` Did you mean "${group} ${nearest}"?` : ''}`,
    );
  }
  if (wantsHelp) {
    await io.out(commandHelp(command));
    return 0;
  }

  const { values, positionals } = parseOptions(
    rest,
    [...GLOBAL_OPTIONS, ...command.options],
    command.positionals ?? { min: 0, max: 0, name: '' },
  );
  for (const p of positionals) if (p.trim() === '') throw new UsageError(`${command.positionals?.name ?? 'an argument'} must not be empty`);
  const ctx = createContext(io, env, values, signal);
  let code: number | undefined;
  try {
    code = await command.run(ctx, values, positionals);
  } catch (err) {
    throw explainUnreachable(
      err,
      () => ctx.baseUrl(),
      () => {
        try {
          return ctx.settings().sources.location;
        } catch {
          return undefined; // configure checks settings that are not saved yet
        }
      },
    );
  }
  return typeof code === 'number' ? code : 0;
}

async function help(words: string[], io: Io): Promise<number> {
  const [group, action] = words;
  if (!group) await io.out(mainHelp());
  else if (action !== undefined && findCommand(group, action)) await io.out(commandHelp(findCommand(group, action)!));
  else if (groupCommands(group).length > 1 || (groupCommands(group).length === 1 && hasActions(group)))
    await io.out(groupHelp(group, groupCommands(group)));
  else if (groupCommands(group).length === 1) await io.out(commandHelp(groupCommands(group)[0]));
  else throw new UsageError(unknownCommand(group));
  return 0;
}

/** The command names people type: the groups and their aliases (`vulns`). */
const commandWords = () => [...new Set([...COMMANDS.map((c) => c.group), ...Object.keys(GROUP_ALIASES)])];

const commandList = () => `commands: ${[...new Set(COMMANDS.map(commandName))].join(', ')}`;

function unknownCommand(word: string): string {
  const suggestion = didYouMean(word, commandWords());
  return suggestion ? `unknown command "${word}".${suggestion}` : `unknown command "${word}"; ${commandList()}`;
}
