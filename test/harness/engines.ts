// The engines every storage test runs against: SQLite always; PostgreSQL and Redis when
// TEST_DATABASE_URL / TEST_REDIS_URL are set (.ci/run sets both). Each test database is isolated:
// a temporary SQLite file, or a fresh PostgreSQL schema selected through search_path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { openDb, type Db, type DialectName } from '../../src/storage/db/connect.ts';
import { migrateTo, migrateToLatest } from '../../src/storage/db/migrate.ts';
import { MemoryRateLimitStore } from '../../src/storage/ratelimit/memory.ts';
import { RedisRateLimitStore } from '../../src/storage/ratelimit/redis.ts';
import type { RateLimitStore } from '../../src/storage/ratelimit/store.ts';

export const dialects = engineList<DialectName>(['sqlite'], {
  postgres: process.env.TEST_DATABASE_URL ? undefined : 'TEST_DATABASE_URL is not set (PostgreSQL runs when it is)',
});
export const stores = engineList<'memory' | 'redis'>(['memory'], {
  redis: process.env.TEST_REDIS_URL ? undefined : 'TEST_REDIS_URL is not set (Redis runs when it is)',
});

/**
 * The engines to loop over. Every suite loops with `for (const dialect of dialects)` at its top or
 * directly in a describe(), so iterating the list is where an engine left out is known to be a suite
 * that did not run: each iteration reports it as a skipped test with the reason, and the test
 * runner's summary counts it under "skipped" instead of leaving it silently absent.
 */
function engineList<T extends string>(always: T[], optional: Record<string, string | undefined>): readonly T[] {
  const available = [...always, ...Object.keys(optional).filter((name) => optional[name] === undefined)] as T[];
  const missing = Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const list = [...available];
  Object.defineProperty(list, Symbol.iterator, {
    value: function* () {
      for (const [name, reason] of missing) test(`${name}: not run`, { skip: reason }, () => {});
      yield* available;
    },
  });
  return list;
}

export interface TestDatabase {
  db: Db;
  dialect: DialectName;
  /** what a separate process needs to open the same database */
  env: Record<string, string>;
  drop(): Promise<void>;
}

const suffix = () => randomBytes(6).toString('hex');

export function postgresUrlFor(schema: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** A new, empty database of `dialect`, migrated to the latest version, or only up to `upTo` (upgrade tests). */
export async function createTestDatabase(dialect: DialectName, upTo?: Parameters<typeof migrateTo>[1]): Promise<TestDatabase> {
  const migrate = (db: Db) => (upTo === undefined ? migrateToLatest(db) : migrateTo(db, upTo));
  if (dialect === 'postgres') {
    const schema = `cds_test_${suffix()}`;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = postgresUrlFor(schema);
    const db = openDb({ databaseUrl: url, poolSize: 5 });
    await migrate(db);
    return {
      db,
      dialect,
      env: { DATABASE_URL: url },
      drop: async () => {
        await db.close().catch(() => {});
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-test-'));
  const file = path.join(dir, 'cds.sqlite');
  // as a server opens it (src/main.ts): checkpoints and the writer in threads of their own; a failed checkpoint thread fails the run
  const db = openDb({
    sqlitePath: file,
    checkpointInThread: {
      onError: (err) => {
        throw err;
      },
    },
    writerInThread: true,
  });
  await migrate(db);
  return {
    db,
    dialect,
    env: { SQLITE_PATH: file, DATA_DIR: dir },
    drop: async () => {
      await db.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestStore {
  store: RateLimitStore;
  env: Record<string, string>;
  prefix: string;
}

export function createTestStore(kind: 'memory' | 'redis', prefix = `cds:test:${suffix()}:`): TestStore {
  if (kind === 'redis') {
    return {
      store: new RedisRateLimitStore(process.env.TEST_REDIS_URL!, { keyPrefix: prefix }),
      env: { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix },
      prefix,
    };
  }
  return { store: new MemoryRateLimitStore(), env: {}, prefix };
}
