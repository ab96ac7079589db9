// Every `cds` command, in the order the help lists them.
import type { Command } from '../command.ts';
import { adminCommands } from './admin.ts';
import { backupCommand, restoreCommand } from './backup.ts';
import { credentialCommands } from './credential.ts';
import { demoCommand } from './demo.ts';
import { migrateCommand, migrateStatusCommand } from './migrate.ts';
import { orgCommands } from './org.ts';
import { programCommands } from './program.ts';
import { versionCommand } from './version.ts';

export const COMMANDS: Command[] = [
  migrateCommand,
  migrateStatusCommand,
  ...orgCommands,
  ...credentialCommands,
  ...adminCommands,
  demoCommand,
  ...programCommands,
  backupCommand,
  restoreCommand,
  versionCommand,
];

export const GROUPS = [...new Set(COMMANDS.map((c) => c.group))];

export function groupCommands(group: string): Command[] {
  return COMMANDS.filter((c) => c.group === group);
}
