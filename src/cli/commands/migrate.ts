// `cds migrate`: every command migrates the database first (context.ts); this one only says so.
// `cds migrate status` lists every migration this build knows, applied (when) or pending, on the
// database as it is, without migrating it.
import { JSON_OPTION, type Command } from '../command.ts';
import { migrationStatus } from '../../storage/db/migrate.ts';
import { SERVICE_VERSION } from '../../shared/version.ts';
import { table } from '../table.ts';

export const migrateCommand: Command = {
  group: 'migrate',
  summary: 'apply database migrations',
  options: {},
  notes: '"cds migrate status" lists the applied and pending migrations without applying any.',
  async run(_ctx, _input, io) {
    io.out('Database is at the latest migration.');
  },
};

export const migrateStatusCommand: Command = {
  group: 'migrate',
  action: 'status',
  summary: 'list applied and pending migrations, without applying any',
  options: { json: JSON_OPTION },
  migrate: false,
  notes: 'Exit code 0 whether or not migrations are pending; "cds migrate" (or starting the server) applies them.',
  async run(ctx, { values }, io) {
    const status = await migrationStatus(ctx.system.db);
    const pending = status.filter((m) => m.appliedAt === undefined).length;
    if (values.json) {
      io.out(
        JSON.stringify(
          { version: SERVICE_VERSION, pending, migrations: status.map((m) => ({ name: m.name, appliedAt: m.appliedAt ?? null })) },
          null,
          2,
        ),
      );
      return;
    }
    io.out(
      table(
        ['MIGRATION', 'APPLIED AT'],
        status.map((m) => [m.name, m.appliedAt ?? 'pending']),
      ),
    );
    io.out(
      pending === 0
        ? `\nThe database is at the latest migration (version ${SERVICE_VERSION}).`
        : `\n${pending} pending: "cds migrate" applies them.`,
    );
  },
};
