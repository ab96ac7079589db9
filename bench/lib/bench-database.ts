// The database a benchmark runs on: a temporary SQLite file, or (when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set) a fresh PostgreSQL schema selected through search_path, with a Redis
// key prefix of its own when BENCH_REDIS_URL or TEST_REDIS_URL is set. Demo data is loaded into it
// before the service starts; `env` is what the service process needs to open the same database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb } from '../../src/storage/db/connect.ts';
import { migrateToLatest } from '../../src/storage/db/migrate.ts';
import { createDemoOrganization, type DemoResult } from '../../src/demo/create-demo-organization.ts';

export type BenchEngine = 'sqlite' | 'postgres';

export interface BenchDatabase {
  engine: BenchEngine;
  /** "SQLite" or "PostgreSQL + Redis" (or "PostgreSQL" without a Redis URL) */
  label: string;
  demo: DemoResult;
  /** every organization loaded, `demo` first (options.organizations, default 1) */
  demos: DemoResult[];
  /** DATABASE_URL or SQLITE_PATH, REDIS_URL and REDIS_KEY_PREFIX, BLOB_DIR */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export const postgresUrl = () => process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
export const redisUrl = () => process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || undefined;

export async function createBenchDatabase(
  engine: BenchEngine,
  options: { scale: number; tag: string; organizations?: number },
): Promise<BenchDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cds-bench-${options.tag}-`));
  const suffix = randomBytes(4).toString('hex');
  let env: Record<string, string> = { BLOB_DIR: path.join(dir, 'blobs'), DATA_DIR: dir };
  let dropSchema = async () => {};
  if (engine === 'postgres') {
    const base = postgresUrl();
    if (!base) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
    const schema = `cds_bench_${options.tag}_${suffix}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = new URL(base);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env = { ...env, DATABASE_URL: url.toString() };
    const redis = redisUrl();
    if (redis) env = { ...env, REDIS_URL: redis, REDIS_KEY_PREFIX: `cds:bench:${options.tag}:${suffix}:` };
    dropSchema = async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    };
  } else {
    env = { ...env, SQLITE_PATH: path.join(dir, 'bench.sqlite') };
  }
  const db = openDb(engine === 'postgres' ? { databaseUrl: env.DATABASE_URL } : { sqlitePath: env.SQLITE_PATH });
  const demos: DemoResult[] = [];
  try {
    await migrateToLatest(db);
    for (let i = 0; i < (options.organizations ?? 1); i++) {
      const name = i === 0 ? `Bench ${options.tag}` : `Bench ${options.tag} ${i + 1}`;
      demos.push(await createDemoOrganization({ db, region: 'us', now: Date.now }, { scale: options.scale, name }));
    }
  } finally {
    await db.close();
  }
  return {
    engine,
    label: engine === 'sqlite' ? 'SQLite' : env.REDIS_URL ? 'PostgreSQL + Redis' : 'PostgreSQL',
    demo: demos[0],
    demos,
    env,
    drop: async () => {
      await dropSchema();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An access token for one of the demo credentials, from the service's own token endpoint. */
export async function fetchToken(baseUrl: string, credential: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The rows of `bench` on each engine named (comma-separated), PostgreSQL reported as skipped without its URL. */
export async function rowsOnEngines(names: string, bench: (engine: BenchEngine) => Promise<string[][]>): Promise<string[][]> {
  const rows: string[][] = [];
  for (const engine of names.split(',').filter(Boolean) as BenchEngine[]) {
    if (engine === 'postgres' && !postgresUrl()) {
      console.log('PostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
      continue;
    }
    rows.push(...(await bench(engine)));
  }
  return rows;
}

/**
 * The environment of a service process over `database` for the import benches: no demo of its own,
 * no operations port, no rate limit, warnings only, and a request time-out long enough for an
 * import of 100,000 results on a busy 2-core machine.
 */
export const importServiceEnv = (database: BenchDatabase): Record<string, string> => ({
  ...database.env,
  HOST: '127.0.0.1',
  DEMO_ON_EMPTY: 'false',
  OPS_PORT: 'off',
  RATE_LIMIT_MAX: String(1e9),
  LOG_LEVEL: 'warn',
  ...(process.env.BENCH_CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_CHILD_NODE_OPTIONS } : {}),
  REQUEST_TIMEOUT_MS: String(30 * 60_000),
});
