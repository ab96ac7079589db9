// `cds migrate`: every command migrates the database first (context.ts); this one only says so.
import type { Command } from '../command.ts';

export const migrateCommand: Command = {
  group: 'migrate',
  summary: 'apply database migrations',
  options: {},
  async run(_ctx, _input, io) {
    io.out('Database is at the latest migration.');
  },
};
