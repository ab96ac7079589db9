#!/usr/bin/env node
// `cds`: the administration command. Works on the embedded database or on DATABASE_URL, with the
// same configuration as the server.
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config.ts';
import { openDb } from '../storage/db/connect.ts';
import { migrateToLatest } from '../storage/db/migrate.ts';
import { ServiceError } from '../domain/errors.ts';
import type { BaseContext } from '../domain/context.ts';
import { orgCommand } from './commands/org.ts';
import { credentialCommand } from './commands/credential.ts';
import { adminCommand } from './commands/admin.ts';
import { createDemoOrganization, printDemoCredentials } from './commands/demo.ts';

const USAGE = `Usage: cds <command> [options]

Commands:
  migrate                                         apply database migrations
  org create --name NAME [--plan RESOURCES] [--json]
  org list [--json]
  org update ORG --plan RESOURCES                 RESOURCES: comma-separated of
                                                  framework,control,policy,evidence,test,vulnerability
  credential create --org ORG --access read_only|read_write [--name NAME] [--json]
  credential list --org ORG [--json]
  credential revoke ID
  admin create --org ORG --email EMAIL [--json]  a console administrator; the password is
                                                  prompted for, or read from stdin's first line
  admin list --org ORG [--json]
  demo [--scale N] [--seed S] [--name NAME] [--json]

The database is DATABASE_URL (PostgreSQL) when set, else the embedded SQLite file
(SQLITE_PATH, default ./data/cds.sqlite). REGION sets the region of new records.`;

export class UsageError extends Error {}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function run(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (!['migrate', 'org', 'credential', 'admin', 'demo'].includes(command)) throw new UsageError(`Unknown command "${command}".`);
  const config = loadConfig(env);
  const db = openDb({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath });
  const ctx: BaseContext = { db, region: config.region, now: Date.now, maxActiveCredentialsPerOrg: config.maxActiveCredentialsPerOrg };
  try {
    await migrateToLatest(db);
    switch (command) {
      case 'migrate':
        io.out('Database is at the latest migration.');
        return 0;
      case 'org':
        return await orgCommand(ctx, rest, io);
      case 'credential':
        return await credentialCommand(ctx, rest, io);
      case 'admin':
        return await adminCommand(ctx, rest, io);
      case 'demo': {
        const { values } = parseArgs({
          args: rest,
          options: { scale: { type: 'string' }, seed: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
          strict: true,
        });
        const scale = values.scale === undefined ? 1 : positiveNumber('--scale', values.scale);
        const seed = values.seed === undefined ? 1 : positiveNumber('--seed', values.seed);
        const demo = await createDemoOrganization(ctx, { scale, seed, name: values.name, progress: !values.json });
        if (values.json) io.out(JSON.stringify(demo));
        else printDemoCredentials(demo, `http://${config.host}:${config.port}`, { write: (s: string) => (io.out(s.replace(/\n$/, '')), true) } as never);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } finally {
    await db.close();
  }
}

export function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number.`);
  return n;
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cds');
if (isMain) {
  const io: CliIo = { out: (t) => process.stdout.write(t + '\n'), err: (t) => process.stderr.write(t + '\n') };
  run(process.argv.slice(2), process.env, io)
    .then((code) => process.exit(code))
    .catch((err) => {
      if (err instanceof UsageError || (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
        io.err(`${err.message}\n\n${USAGE}`);
        process.exit(2);
      }
      if (err instanceof ConfigError) {
        io.err(`Configuration error: ${err.message}`);
        process.exit(78);
      }
      if (err instanceof ServiceError) {
        io.err(`${err.code}: ${err.message}${err.details.length ? ' ' + JSON.stringify(err.details) : ''}`);
        process.exit(err.code === 'not_found' ? 4 : 1);
      }
      io.err(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    });
}
