// GET /v1/controls: how many SQL statements a request runs, and its latency on a large
// organization with the result cache warm and cold.
//
//   node bench/controls.ts [--scale 20] [--requests 200] [--framework "NIST CSF 2.0"]
//   BENCH_DATABASE_URL=postgres://… node bench/controls.ts   (PostgreSQL instead of SQLite)
//
// 1. Statements: every statement the app sends is counted by a Kysely plugin installed on the
//    app's database handle (bench only), on the scale-1 demo organization and on the large one:
//    the counts must not depend on the size.
// 2. Latency of GET /v1/controls?frameworkIds=<one framework> on the large organization, one
//    request at a time from a worker thread:
//    - warm: the cached answer is served;
//    - cold, new combination: each request asks for the framework plus a random unknown ID (the
//      same answer under a new cache key), so the verb runs: it selects the controls and
//      evaluates the compliance rule for each, over the data version's snapshot (controls,
//      links, artifact states), which the first request loaded;
//    - cold, data version bumped before every request (as after every write): everything is read
//      from the database again and computed;
//    - after an evidence upload (one small file to a random evidence record, over HTTP, before
//      every request): the evidence states are read again, the rest of the snapshot is reused;
//    - after a vulnerability write (a finding created over HTTP before every request): that
//      write cannot change the answer, which stays cached.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb, type Db } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { bumpDataVersions } from '../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../src/shared/data-versions.ts';
import { createDemoOrganization, type DemoResult } from '../src/demo/create-demo-organization.ts';
import { authenticate } from '../src/domain/auth/tokens.ts';
import type { Context } from '../src/domain/context.ts';
import { listControls } from '../src/domain/controls/list.ts';
import { NoResultCache } from '../src/domain/result-cache.ts';
import { systemContext } from '../src/system-context.ts';
import { openBlobStore } from '../src/storage/blobs/open.ts';
import { runSequential, type SequentialResult } from './lib/sequential.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '20' },
    requests: { type: 'string', default: '200' },
    framework: { type: 'string', default: 'NIST CSF 2.0' },
  },
});
const scale = Number(values.scale);
const requests = Number(values.requests);

/** Counts the statements Kysely sends (bench only). */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const db = openDb(databaseUrl ? { databaseUrl } : { sqlitePath: path.join(dir, 'bench.sqlite') });
await migrateToLatest(db);
const counter = new StatementCounter();
const counted: Db = { kysely: db.kysely.withPlugin(counter), dialect: db.dialect, ping: () => db.ping(), close: () => db.close() };
const config = loadConfig({
  SQLITE_PATH: path.join(dir, 'bench.sqlite'),
  BLOB_DIR: path.join(dir, 'blobs'),
  RATE_LIMIT_MAX: String(1e9),
  // the demo's attachments are recorded with sizes that fill the default quota
  ATTACHMENT_QUOTA_BYTES: String(2 ** 50),
  LOG_LEVEL: 'silent',
});
const system = { db, region: config.region, now: Date.now };

const log = (line = '') => console.log(line);
const started = performance.now();
const demo = await createDemoOrganization(system, { scale: 1, name: `Bench demo ${Date.now()}` });
const large = await createDemoOrganization(system, { scale, name: `Bench scale ${scale} ${Date.now()}` });
if (db.dialect === 'postgres') await sql`analyze`.execute(db.kysely); // what autovacuum does after a bulk load
log(
  `GET /v1/controls — ${db.dialect}; demo data loaded in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} CPUs`,
);
for (const [label, org] of [
  ['demo (scale 1)', demo],
  [`scale ${scale}`, large],
] as const) {
  const s = org.summary;
  log(
    `  ${label.padEnd(15)} ${s.controls} controls, ${s.policies + s.evidence + s.tests} artifacts (${s.policies} policies, ${s.evidence} evidence, ${s.tests} tests), ${s.tables.control_artifacts} control→artifact and ${s.tables.artifact_requirements} artifact→requirement links`,
  );
}

const store = new MemoryRateLimitStore();
const app = await buildApp(config, { db: counted, rateLimitStore: store, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const appUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

async function tokenFor(org: DemoResult, credential = org.readOnly): Promise<string> {
  const res = await fetch(`${appUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
const tokens = new Map([
  [demo, await tokenFor(demo)],
  [large, await tokenFor(large)],
]);

async function get(org: DemoResult, pathAndQuery: string) {
  const res = await fetch(`${appUrl}${pathAndQuery}`, { headers: { authorization: `Bearer ${tokens.get(org)}` } });
  const body = (await res.json()) as { data: any };
  if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

// ---- 1. Statements per request ----
async function frameworkIdOf(org: DemoResult, name: string): Promise<string> {
  const frameworks = (await get(org, '/v1/frameworks')) as Array<{ frameworkId: string; frameworkName: string }>;
  const found = frameworks.find((f) => f.frameworkName === name);
  if (!found) throw new Error(`no framework named ${name}; have ${frameworks.map((f) => f.frameworkName).join(', ')}`);
  return found.frameworkId;
}

async function statementsOf(org: DemoResult, pathAndQuery: string): Promise<{ http: number; verb?: number }> {
  await get(org, pathAndQuery); // the credential's lastUsedAt is written at most once a minute: keep it out of the count
  await bumpDataVersions(db.kysely, org.organization.id, DATA_KINDS); // so the result cache misses
  counter.count = 0;
  await get(org, pathAndQuery);
  return { http: counter.count };
}

/** Statements of the verb alone: with nothing cached, then with the snapshot of the data version already loaded. */
async function verbStatements(org: DemoResult, input: Parameters<typeof listControls>[0]['input']): Promise<[number, number]> {
  const actor = await authenticate({ ctx: system, input: { token: tokens.get(org) } });
  const ctx: Context = { ...systemContext(config, { db: counted, blobs: openBlobStore(config), limiter: store }), actor };
  counter.count = 0;
  await listControls({ ctx, input });
  const cold = counter.count;
  // The same answer under another key (an unknown ID added, or a status filter keeping all),
  // as for any other filter combination of the same data version.
  const variant = {
    ...input,
    status: input.status ?? (['compliant', 'non_compliant', 'not_applicable'] as const).slice(),
    frameworkIds: input.frameworkIds && [...input.frameworkIds, randomUUID()],
    entityIds: input.entityIds && [...input.entityIds, randomUUID()],
  };
  counter.count = 0;
  await listControls({ ctx, input: variant });
  return [cold, counter.count];
}

log();
log('SQL statements per request. "HTTP": one request with the data version just bumped (so nothing is cached), token lookup');
log('included. "verb": listControls alone, cold, and then for another filter combination with the same answer (the data');
log("version's snapshot is loaded already).");
const allFields = 'mappedFrameworkIds,outOfScopeReason,markedOutOfScopeBy,addedBy,addedOn,lastModifiedBy,modifiedOn';
for (const org of [demo, large]) {
  const label = org === demo ? 'demo (scale 1)' : `scale ${scale}`;
  const f = await frameworkIdOf(org, values.framework!);
  const someControl = ((await get(org, '/v1/controls')) as Array<{ controlId: string }>)[0].controlId;
  const some = (await get(org, `/v1/controls/${someControl}`)) as {
    entities: Array<{ entityId: string }>;
    assignees: Array<{ email: string }>;
    controlDomain: string;
  };
  const entityId = some.entities[0]?.entityId ?? randomUUID();
  const email = some.assignees[0]?.email ?? 'nobody@example.com';
  const groupings = ['protect', 'detect', 'govern', 'identify', 'respond', 'recover'] as const;
  const every: Parameters<typeof listControls>[0]['input'] = {
    frameworkIds: [f],
    status: ['compliant', 'non_compliant'],
    entityIds: [entityId],
    assigneeEmails: [email],
    domains: [some.controlDomain],
    functionGroupings: [...groupings],
    controlScope: ['in_scope'],
    fields: allFields.split(',') as never,
  };
  const rows: Array<[string, string, [number, number] | undefined]> = [
    ['GET /v1/controls', '/v1/controls', await verbStatements(org, {})],
    ['GET /v1/controls?frameworkIds=F', `/v1/controls?frameworkIds=${f}`, await verbStatements(org, { frameworkIds: [f] })],
    [
      'GET /v1/controls?<every filter>&fields=<all>',
      `/v1/controls?frameworkIds=${f}&status=compliant,non_compliant&entityIds=${entityId}&assigneeEmails=${encodeURIComponent(email)}` +
        `&domains=${encodeURIComponent(some.controlDomain)}&functionGroupings=${groupings.join(',')}&controlScope=in_scope&fields=${allFields}`,
      await verbStatements(org, every),
    ],
    [
      'GET /v1/controls/{id}?fields=<all expansions>',
      `/v1/controls/${someControl}?fields=complianceOverview,mappedArtifacts,mappedRisks`,
      undefined,
    ],
    ['GET /v1/frameworks', '/v1/frameworks', undefined],
  ];
  log(`  ${label}:`);
  for (const [name, url, verb] of rows) {
    const { http } = await statementsOf(org, url);
    log(
      `    ${name.padEnd(46)} HTTP ${String(http).padStart(3)}${verb === undefined ? '' : `   verb: cold ${String(verb[0]).padStart(2)}, same data version ${verb[1]}`}`,
    );
  }
}

// ---- 2. Latency on the large organization ----
const F = await frameworkIdOf(large, values.framework!);
const sample = (await get(large, `/v1/controls?frameworkIds=${F}`)) as unknown[];
const bytes = Buffer.byteLength(JSON.stringify({ data: sample }));
log();
log(
  `Latency of GET /v1/controls?frameworkIds=<${values.framework}> on the scale-${scale} organization: ${sample.length} controls in the answer (~${Math.round(bytes / 1024)} KiB); ${requests} requests one at a time`,
);
const headers = { authorization: `Bearer ${tokens.get(large)}` };
const fmt = (r: SequentialResult) =>
  `p50 ${r.p50Ms.toFixed(1).padStart(6)} ms   p99 ${r.p99Ms.toFixed(1).padStart(6)} ms   mean ${r.meanMs.toFixed(1).padStart(6)} ms   errors ${r.errors}`;
const warm = await runSequential({ urls: [`${appUrl}/v1/controls?frameworkIds=${F}`], headers, requests, warmup: 10 });
log(`  warm (cached result)                    ${fmt(warm)}`);
const combos = Array.from({ length: requests + 10 }, () => `${appUrl}/v1/controls?frameworkIds=${F},${randomUUID()}`);
const coldCombo = await runSequential({ urls: combos, headers, requests, warmup: 10 });
log(`  cold: new frameworkIds combination      ${fmt(coldCombo)}   (snapshot of the data version reused)`);
const coldVersion = await runSequential({ urls: [`${appUrl}/v1/controls?frameworkIds=${F}`], headers, requests, warmup: 10 }, () =>
  bumpDataVersions(db.kysely, large.organization.id, DATA_KINDS),
);
log(`  cold: data version bumped each request  ${fmt(coldVersion)}   (everything read again)`);
const coldAll = await runSequential(
  { urls: [`${appUrl}/v1/controls`], headers, requests: Math.max(20, Math.floor(requests / 4)), warmup: 5 },
  () => bumpDataVersions(db.kysely, large.organization.id, DATA_KINDS),
);
log(`  same, without frameworkIds (${(await get(large, '/v1/controls')).length} controls)  ${fmt(coldAll)}`);

// Writes over HTTP before each request, as a client would make them.
const writer = { authorization: `Bearer ${await tokenFor(large, large.readWrite)}` };
const evidenceIds = ((await get(large, '/v1/evidence')) as Array<{ evidenceId: string }>).map((e) => e.evidenceId);
let writes = 0;
async function write(method: string, pathAndQuery: string, body: string | FormData, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl}${pathAndQuery}`, {
    method,
    headers: { ...writer, 'idempotency-key': `bench-${Date.now()}-${++writes}`, ...headers },
    body,
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`${method} ${pathAndQuery}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}
const uploadEvidence = () => {
  const form = new FormData();
  form.append('evidenceDate', String(Date.now() - 60_000));
  form.append('files', new Blob([`bench upload ${writes}\n`]), 'export.txt');
  return write('POST', `/v1/evidence/${evidenceIds[writes % evidenceIds.length]}/attachments`, form);
};
const createFinding = () =>
  write(
    'POST',
    '/v1/vulnerabilities',
    JSON.stringify({ vulnerabilityId: `CVE-2099-${10000 + writes}`, title: 'Bench finding', severity: 'low', status: 'open' }),
    { 'content-type': 'application/json' },
  );
const controlsUrl = [`${appUrl}/v1/controls?frameworkIds=${F}`];
const afterUpload = await runSequential({ urls: controlsUrl, headers, requests, warmup: 10 }, uploadEvidence);
log(`  after an evidence upload                ${fmt(afterUpload)}`);
const afterFinding = await runSequential({ urls: controlsUrl, headers, requests, warmup: 10 }, createFinding);
log(`  after a vulnerability write             ${fmt(afterFinding)}`);
const frameworksAfterUpload = await runSequential({ urls: [`${appUrl}/v1/frameworks`], headers, requests, warmup: 10 }, uploadEvidence);
log(`  GET /v1/frameworks after an evidence upload  ${fmt(frameworksAfterUpload)}`);

log(
  `  load average after the runs: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

// Where a cold request's time goes: the verb alone (database reads and computation), in this thread.
const actor = await authenticate({ ctx: system, input: { token: tokens.get(large) } });
const ctx: Context = { ...systemContext(config, { db, blobs: openBlobStore(config), limiter: store, cache: new NoResultCache() }), actor };
const verbTimes: number[] = [];
let result: unknown[] = [];
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  result = await listControls({ ctx, input: { frameworkIds: [F] } });
  verbTimes.push(performance.now() - t);
}
const t = performance.now();
for (let i = 0; i < 10; i++) JSON.stringify(result);
const stringifyMs = (performance.now() - t) / 10;
verbTimes.sort((a, b) => a - b);
log(
  `  breakdown of a cold request: the verb alone (reads + statuses, nothing cached) p50 ${verbTimes[15].toFixed(1)} ms; JSON.stringify of its result ${stringifyMs.toFixed(1)} ms`,
);

await app.close();
await store.close();
await db.close();
fs.rmSync(dir, { recursive: true, force: true });
