// The service in this process on a prepared database, for the benches that measure it one request
// at a time: rate limit out of the way, logs off, and a Read Only token of `organizationId`. With
// REDIS_URL in `env` the rate limits (and what the grant cache trusts on PostgreSQL) are in Redis,
// as a deployment on PostgreSQL runs; otherwise in memory.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createCredential } from '../../src/domain/auth/create-credential.ts';
import type { BaseContext } from '../../src/domain/context.ts';
import type { Db } from '../../src/storage/db/connect.ts';
import { openRateLimitStore } from '../../src/storage/ratelimit/open.ts';
import type { RateLimitStore } from '../../src/storage/ratelimit/store.ts';

export interface BenchService {
  app: FastifyInstance;
  port: number;
  token: string;
  /** the rate-limit store: Redis (and its markers) when REDIS_URL was given */
  store: RateLimitStore;
  close(): Promise<void>;
}

export async function startBenchService(options: {
  db: Db;
  env: Record<string, string | undefined>;
  organizationId: string;
  system: BaseContext;
}): Promise<BenchService> {
  const config = loadConfig({ ...options.env, RATE_LIMIT_MAX: String(1e9), LOG_LEVEL: 'silent' });
  const store = openRateLimitStore(config);
  const app = await buildApp(config, { db: options.db, rateLimitStore: store, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const credential = await createCredential({
    ctx: {
      ...options.system,
      actor: { type: 'cli', id: null, label: 'bench', ip: null, userAgent: null, organizationId: options.organizationId },
    },
    input: { accessLevel: 'read_only', name: 'bench' },
  });
  const tokenRes = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  return {
    app,
    port,
    token,
    store,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
