// Every command, in the order the help lists them.
import { apiCommand } from './api.ts';
import type { Command } from './command.ts';
import { completionCommand } from './completion.ts';
import { configureCommand } from './configure.ts';
import { controlCommands } from './controls.ts';
import { eventCommands } from './events.ts';
import { evidenceCommands } from './evidence.ts';
import { exportCommand } from './export.ts';
import { frameworkCommands } from './frameworks.ts';
import { policyCommands } from './policies.ts';
import { programCommands } from './program.ts';
import { testCommands } from './tests.ts';
import { vulnerabilityCommands } from './vulnerabilities.ts';
import { whoamiCommand } from './whoami.ts';

export const COMMANDS: Command[] = [
  ...frameworkCommands,
  ...controlCommands,
  ...policyCommands,
  ...evidenceCommands,
  ...testCommands,
  ...vulnerabilityCommands,
  ...eventCommands,
  ...programCommands,
  exportCommand,
  apiCommand,
  configureCommand,
  whoamiCommand,
  completionCommand,
];

/** Shorter names people type. */
export const GROUP_ALIASES: Record<string, string> = { vulns: 'vulnerabilities', findings: 'vulnerabilities' };

export function hasActions(group: string): boolean {
  const name = GROUP_ALIASES[group] ?? group;
  return COMMANDS.some((c) => c.group === name && c.action !== undefined);
}

export function findCommand(group: string, action: string | undefined): Command | undefined {
  const name = GROUP_ALIASES[group] ?? group;
  return COMMANDS.find((c) => c.group === name && c.action === action);
}

export function groupCommands(group: string): Command[] {
  const name = GROUP_ALIASES[group] ?? group;
  return COMMANDS.filter((c) => c.group === name);
}
