// What every `cds` command runs with: the server's configuration (from the same environment) and
// a system context on its database, migrated to the latest version first.
import { loadConfig, type Config } from '../config.ts';
import type { SystemContext } from '../domain/context.ts';
import { openDb } from '../storage/db/connect.ts';
import { migrateToLatest } from '../storage/db/migrate.ts';

export interface CliContext {
  system: SystemContext;
  config: Config;
}

/** Opens the database, runs `use`, and closes the database whatever happens. */
export async function withCliContext<T>(env: NodeJS.ProcessEnv, use: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const db = openDb({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath });
  try {
    await migrateToLatest(db);
    const system: SystemContext = { db, region: config.region, now: Date.now, maxActiveCredentialsPerOrg: config.maxActiveCredentialsPerOrg };
    return await use({ system, config });
  } finally {
    await db.close();
  }
}
