// What every `cds` command runs with: the server's configuration (from the same environment) and
// a base context on its database (the verbs `cds` calls need no cache, blob store or limiter), migrated to the latest version first.
import { loadConfig, type Config } from '../config.ts';
import { setHeapGrowth } from '../heap-growth.ts';
import type { BaseContext } from '../domain/context.ts';
import { openDb } from '../storage/db/connect.ts';
import { migrateToLatest } from '../storage/db/migrate.ts';
import { RedisRateLimitStore } from '../storage/ratelimit/redis.ts';

export interface CliContext {
  system: BaseContext;
  config: Config;
}

/** Opens the database (migrated to the latest version unless `migrate` is false), runs `use`, and closes the database whatever happens. */
export async function withCliContext<T>(
  env: NodeJS.ProcessEnv,
  use: (ctx: CliContext) => Promise<T>,
  options: { migrate: boolean } = { migrate: true },
): Promise<T> {
  const config = loadConfig(env);
  setHeapGrowth(config.heapGrowthPercent);
  const db = openDb({ databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, sqlitePath: config.sqlitePath });
  // With PostgreSQL and Redis, a revocation, an access or a plan change is announced to the
  // servers through Redis (domain/auth/state-markers.ts); on SQLite they see the file change.
  const markers =
    config.databaseUrl && config.redisUrl ? new RedisRateLimitStore(config.redisUrl, { keyPrefix: config.redisKeyPrefix }) : undefined;
  try {
    if (options.migrate) await migrateToLatest(db);
    const system: BaseContext = {
      db,
      region: config.region,
      now: Date.now,
      maxActiveCredentialsPerOrg: config.maxActiveCredentialsPerOrg,
      markers,
      webhooks: config.webhooks,
    };
    return await use({ system, config });
  } finally {
    await markers?.close();
    await db.close();
  }
}
