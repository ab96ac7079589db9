// npm run bench: GET /v1/frameworks on the demo organization, against a raw node:http server
// returning the same bytes, in the same run. Prints requests/s, p50 and p99 and the ratios.
//
//   node bench/frameworks.ts [--scale N] [--connections N] [--seconds N]
//   BENCH_DATABASE_URL=postgres://… node bench/frameworks.ts   (PostgreSQL instead of SQLite)
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { createDemoOrganization } from '../src/demo/create-demo-organization.ts';
import { runLoad, type LoadResult } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
  },
});
const scale = Number(values.scale);
const connections = Number(values.connections);
const durationMs = Number(values.seconds) * 1000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const db = openDb(databaseUrl ? { databaseUrl } : { sqlitePath: path.join(dir, 'bench.sqlite') });
await migrateToLatest(db);
const config = loadConfig({
  SQLITE_PATH: path.join(dir, 'bench.sqlite'),
  // The benchmark measures throughput, not the limiter: raise the per-credential limit.
  RATE_LIMIT_MAX: String(1e9),
  LOG_LEVEL: 'silent',
});
const system = { db, region: config.region, now: Date.now };
const demo = await createDemoOrganization(system, { scale, name: `Bench ${Date.now()}` });
const store = new MemoryRateLimitStore();
const app = await buildApp(config, { db, rateLimitStore: store, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const appUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

const tokenRes = await fetch(`${appUrl}/oauth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ grant_type: 'client_credentials', client_id: demo.readOnly.clientId, client_secret: demo.readOnly.clientSecret }),
});
const { access_token: token } = (await tokenRes.json()) as { access_token: string };
const headers = { authorization: `Bearer ${token}` };
const sample = await fetch(`${appUrl}/v1/frameworks`, { headers });
const bytes = Buffer.from(await sample.arrayBuffer());
if (sample.status !== 200) throw new Error(`unexpected status ${sample.status}: ${bytes}`);

// The baseline: the same bytes from a bare node:http handler (no auth, no database, no JSON work).
const raw = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
  res.end(bytes);
});
await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
const rawUrl = `http://127.0.0.1:${(raw.address() as { port: number }).port}`;

const load = (url: string) => runLoad({ url: `${url}/v1/frameworks`, headers, connections, durationMs, warmupMs: 1000 });
const rawResult = await load(rawUrl);
const appResult = await load(appUrl);

const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms.toFixed(2).padStart(7)} ms   p99 ${r.p99Ms.toFixed(2).padStart(7)} ms   errors ${r.errors}`;
console.log(
  `GET /v1/frameworks — ${db.dialect}, demo scale ${scale} (${demo.summary.frameworks} frameworks, ${demo.summary.controls} controls), response ${bytes.length} bytes, ${connections} connections, ${durationMs / 1000} s`,
);
console.log(`raw node:http   ${fmt(rawResult)}`);
console.log(`service         ${fmt(appResult)}`);
console.log(
  `ratio service/raw: throughput ${(appResult.rps / rawResult.rps).toFixed(3)}, p50 ${(appResult.p50Ms / rawResult.p50Ms).toFixed(2)}x, p99 ${(appResult.p99Ms / rawResult.p99Ms).toFixed(2)}x`,
);

await app.close();
raw.close();
await store.close();
await db.close();
fs.rmSync(dir, { recursive: true, force: true });
