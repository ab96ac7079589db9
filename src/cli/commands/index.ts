// Every `cds` command, in the order the help lists them.
import type { Command } from '../command.ts';
import { adminCommands } from './admin.ts';
import { credentialCommands } from './credential.ts';
import { demoCommand } from './demo.ts';
import { migrateCommand } from './migrate.ts';
import { orgCommands } from './org.ts';
import { versionCommand } from './version.ts';

export const COMMANDS: Command[] = [migrateCommand, ...orgCommands, ...credentialCommands, ...adminCommands, demoCommand, versionCommand];

export const GROUPS = [...new Set(COMMANDS.map((c) => c.group))];

export function groupCommands(group: string): Command[] {
  return COMMANDS.filter((c) => c.group === group);
}
