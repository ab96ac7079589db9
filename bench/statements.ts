// How many SQL statements the policy, evidence and vulnerability read verbs run, on the demo organization at
// several scales. The verbs get a Kysely opened with a `log` callback that counts every statement;
// no result cache, so every call computes. The count must not grow with the number of rows.
//
//   node bench/statements.ts [--scales 1,5]
//   BENCH_DATABASE_URL=postgres://… node bench/statements.ts   (PostgreSQL instead of SQLite)
import { INITIAL_DATA_VERSIONS } from '../src/shared/data-versions.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { createDemoOrganization } from '../src/demo/create-demo-organization.ts';
import { RESOURCES, scopesFor } from '../src/domain/auth/scopes.ts';
import type { Context } from '../src/domain/context.ts';
import { loadConfig } from '../src/config.ts';
import { NoResultCache } from '../src/domain/result-cache.ts';
import { systemContext } from '../src/system-context.ts';
import { openBlobStore } from '../src/storage/blobs/open.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { getEvidence } from '../src/domain/evidence/get.ts';
import { EVIDENCE_OPTIONAL_FIELDS, listEvidence } from '../src/domain/evidence/list.ts';
import { getPolicy } from '../src/domain/policies/get.ts';
import { listPolicies, POLICY_OPTIONAL_FIELDS } from '../src/domain/policies/list.ts';
import { listVulnerabilities } from '../src/domain/vulnerabilities/list.ts';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import type { Database } from '../src/storage/db/schema.ts';
import { nodeSqliteDialect } from '../src/storage/db/sqlite-driver.ts';
import { openSqlite } from '../src/storage/db/sqlite-open.ts';
import { writerOnLoop } from '../src/storage/db/sqlite-writer.ts';

const { values } = parseArgs({ options: { scales: { type: 'string', default: '1,5' } } });
const scales = values.scales.split(',').map(Number);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-statements-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const sqlitePath = path.join(dir, 'bench.sqlite');
const db = openDb(databaseUrl ? { databaseUrl } : { sqlitePath });
await migrateToLatest(db);

let statements = 0;
const log = (event: LogEvent) => {
  if (event.level === 'query' || event.level === 'error') statements++;
};
// The same database, opened a second time with the counting `log` callback.
const counted = new Kysely<Database>({
  dialect: databaseUrl
    ? new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 4 }) })
    : nodeSqliteDialect(writerOnLoop(openSqlite(sqlitePath))),
  log,
});
const countedDb: Db = { kysely: counted, dialect: db.dialect, ping: async () => {}, close: () => counted.destroy() };

async function measure<T>(run: () => Promise<T>): Promise<{ statements: number; result: T; ms: number }> {
  statements = 0;
  const start = performance.now();
  const result = await run();
  return { statements, result, ms: performance.now() - start };
}

const system = { db, region: 'us' as const, now: Date.now };
// the verbs below see every load: nothing is cached
const config = loadConfig({ LOG_LEVEL: 'silent' });
console.log(`SQL statements per call (${db.dialect}; no result cache)`);
console.log(`scale  ${'call'.padEnd(48)}  rows  statements      ms`);
for (const scale of scales) {
  const demo = await createDemoOrganization(system, { scale, name: `Statements ${scale}` });
  const ctx: Context = {
    ...systemContext(config, {
      db: countedDb,
      blobs: openBlobStore(config),
      limiter: new MemoryRateLimitStore(),
      cache: new NoResultCache(),
    }),
    actor: {
      organizationId: demo.organization.id,
      credentialId: 'bench',
      scopes: new Set(scopesFor('read_only')),
      plan: new Set(RESOURCES),
      dataVersions: INITIAL_DATA_VERSIONS,
    },
  };
  const [firstPolicy] = await listPolicies({ ctx, input: {} });
  const [firstEvidence] = await listEvidence({ ctx, input: { status: ['uploaded'] } });
  await listVulnerabilities({ ctx, input: {} }); // reads the cursor key once
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['GET /v1/policies', () => listPolicies({ ctx, input: {} })],
    ['GET /v1/policies?fields=<all 14>', () => listPolicies({ ctx, input: { fields: [...POLICY_OPTIONAL_FIELDS] } })],
    [
      'GET /v1/policies?departments=…&isRelevant=true',
      () => listPolicies({ ctx, input: { departments: ['engineering', 'No Department'], isRelevant: true } }),
    ],
    [
      'GET /v1/policies/{id}?fields=<all 4>',
      () =>
        getPolicy({ ctx, input: { policyId: firstPolicy.policyId, fields: ['aiDetectedGaps', 'documents', 'versionHistory', 'tickets'] } }),
    ],
    ['GET /v1/evidence', () => listEvidence({ ctx, input: {} })],
    ['GET /v1/evidence?fields=<all 12>', () => listEvidence({ ctx, input: { fields: [...EVIDENCE_OPTIONAL_FIELDS] } })],
    [
      'GET /v1/evidence/{id}?fields=<all 4>',
      () =>
        getEvidence({ ctx, input: { evidenceId: firstEvidence.evidenceId, fields: ['mappedTests', 'gaps', 'attachments', 'tickets'] } }),
    ],
    // without a result cache the per-cell counts and custom field definitions are read on each call too
    ['GET /v1/vulnerabilities?count=100', () => listVulnerabilities({ ctx, input: { count: 100 } })],
    [
      'GET /v1/vulnerabilities?count=100&fields=<all 3>',
      () => listVulnerabilities({ ctx, input: { count: 100, fields: ['cvssScore', 'resourcesCount', 'firstSeen'] } }),
    ],
  ];
  for (const [name, run] of calls) {
    const m = await measure(run);
    const rows = Array.isArray(m.result)
      ? m.result.length
      : Array.isArray((m.result as { data?: unknown }).data)
        ? (m.result as { data: unknown[] }).data.length
        : 1;
    console.log(
      `${String(scale).padStart(5)}  ${name.padEnd(48)} ${String(rows).padStart(5)}  ${String(m.statements).padStart(10)}  ${m.ms.toFixed(1).padStart(6)}`,
    );
  }
}

await counted.destroy();
await db.close();
fs.rmSync(dir, { recursive: true, force: true });
