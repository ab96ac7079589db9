// Builds the server app in-process over a throw-away SQLite database and asks it for
// /openapi.json: the document the running service serves, produced from the route schemas.
// Nothing listens on a port and no demo data is loaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { openDb } from '../../../src/storage/db/connect.ts';
import { migrateToLatest } from '../../../src/storage/db/migrate.ts';
import { MemoryRateLimitStore } from '../../../src/storage/ratelimit/memory.ts';
import type { OpenApiDocument } from './openapi-to-ts.ts';

export async function loadServerOpenApi(): Promise<OpenApiDocument> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-sdk-openapi-'));
  const config = loadConfig({ DATA_DIR: dir, SQLITE_PATH: path.join(dir, 'openapi.sqlite'), LOG_LEVEL: 'silent', DEMO_ON_EMPTY: 'false' });
  const db = openDb({ sqlitePath: config.sqlitePath });
  const store = new MemoryRateLimitStore();
  try {
    await migrateToLatest(db);
    const app = await buildApp(config, { db, rateLimitStore: store, logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
      return JSON.parse(res.body) as OpenApiDocument;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
