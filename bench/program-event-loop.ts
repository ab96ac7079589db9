// How long a program document holds the server's event loop (issue 36, item 3): the server runs in
// its own process (src/main.ts on SQLite); while one PUT /v1/program runs, this process asks
// /healthz one request at a time (a pause of 20 ms between them) and reports the slowest answer,
// which is how long the loop was held at most. Beside it, this process times the loader alone
// (loadProgramBytes, synchronous) on the same bytes: what the parse costs of the hold.
//
//   node bench/program-event-loop.ts [--yaml-mib 7.5] [--json-mib 50]
//
// Cases: a YAML document sent with a Read Only credential (refused 403 either way); the same with a
// Read & Write credential in plan mode; a JSON document in plan mode. The documents hold tests with
// flagged resources (10,000 each, the most a test may hold), nothing they reference.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { createCredential } from '../src/domain/auth/create-credential.ts';
import { loadConfig } from '../src/config.ts';
import { systemContext } from '../src/system-context.ts';
import { openRateLimitStore } from '../src/storage/ratelimit/open.ts';
import { loadProgramBytes } from '../src/formats/program/load.ts';
import { DEFAULT_PROGRAM_LIMITS } from '../src/shared/program-limits.ts';
import { freePort, ROOT, startChild } from './lib/child.ts';

const { values } = parseArgs({
  options: { 'yaml-mib': { type: 'string', default: '7.5' }, 'json-mib': { type: 'string', default: '50' } },
});
const MiB = 1024 * 1024;

/** Tests of 10,000 resources each, as many as make `bytes` of text in the given format. */
export function testsDocument(bytes: number, format: 'yaml' | 'json'): Buffer {
  const resource = (t: number, i: number) => ({
    resourceId: `arn:aws:s3:::bucket-${t}-${i}`,
    name: `bucket ${t}-${i}`,
    status: 'fix_required',
  });
  const test = (t: number) => ({
    key: `test-${t}`,
    name: `Test ${t}`,
    resources: Array.from({ length: 10_000 }, (_, i) => resource(t, i)),
  });
  const encode = (doc: unknown) => Buffer.from(format === 'yaml' ? stringify(doc) : JSON.stringify(doc));
  const perTest = encode({ version: 1, tests: [test(0)] }).length;
  const count = Math.max(1, Math.round(bytes / perTest));
  return encode({ version: 1, tests: Array.from({ length: count }, (_, t) => test(t)) });
}

async function prepare(dir: string) {
  const env = { DATA_DIR: dir, DEMO_ON_EMPTY: 'false' };
  const config = loadConfig(env);
  const db = openDb({ sqlitePath: config.sqlitePath, databaseUrl: undefined });
  await migrateToLatest(db);
  const store = openRateLimitStore(config);
  const system = systemContext(config, { db, limiter: store, blobs: undefined as never });
  const org = await createOrganization({ ctx: system, input: { name: 'Bench Org' } });
  const actor = { type: 'cli' as const, id: null, label: 'bench', ip: null, userAgent: null, organizationId: org.id };
  const credentials: Record<string, { clientId: string; clientSecret: string }> = {};
  for (const accessLevel of ['read_only', 'read_write']) {
    credentials[accessLevel] = await createCredential({ ctx: { ...system, actor } as never, input: { accessLevel, name: accessLevel } });
  }
  await store.close();
  await db.close();
  return { env, credentials };
}

async function tokenOf(url: string, c: { clientId: string; clientSecret: string }) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The slowest /healthz answer while `work` runs, asked one at a time. */
async function healthWhile(url: string, work: Promise<unknown>) {
  let done = false;
  void work.finally(() => (done = true));
  let slowest = 0;
  let asked = 0;
  while (!done) {
    const started = performance.now();
    await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
    slowest = Math.max(slowest, performance.now() - started);
    asked++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { slowest, asked };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-loop-'));
const { env, credentials } = await prepare(dir);
const port = await freePort();
const server = await startChild(
  [path.join(ROOT, 'src/main.ts')],
  { ...env, PORT: String(port), HOST: '127.0.0.1', OPS_PORT: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000' },
  port,
);
try {
  const readOnly = await tokenOf(server.url, credentials.read_only);
  const readWrite = await tokenOf(server.url, credentials.read_write);
  const yaml = testsDocument(Number(values['yaml-mib']) * MiB, 'yaml');
  const json = testsDocument(Number(values['json-mib']) * MiB, 'json');
  const cases = [
    { name: 'YAML, Read Only', body: yaml, type: 'application/yaml', token: readOnly },
    { name: 'YAML, plan', body: yaml, type: 'application/yaml', token: readWrite },
    { name: 'JSON, plan', body: json, type: 'application/json', token: readWrite },
  ];
  console.log('case               size        status  request   slowest /healthz  (asked)  loader alone (this process)');
  for (const c of cases) {
    const started = performance.now();
    const request = fetch(`${server.url}/v1/program?mode=plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${c.token}`, 'content-type': c.type },
      body: c.body,
    }).then(async (r) => ({ status: r.status, body: await r.text() }));
    const health = await healthWhile(server.url, request);
    const { status, body } = await request;
    if (status >= 500) console.error(body.slice(0, 500));
    const total = performance.now() - started;
    const loadStarted = performance.now();
    loadProgramBytes(c.body, { file: 'body', format: c.type === 'application/yaml' ? 'yaml' : 'json', limits: DEFAULT_PROGRAM_LIMITS });
    const load = performance.now() - loadStarted;
    console.log(
      `${c.name.padEnd(18)} ${`${(c.body.length / MiB).toFixed(1)} MiB`.padStart(9)} ${String(status).padStart(8)} ${`${(total / 1000).toFixed(1)} s`.padStart(8)} ${`${health.slowest.toFixed(0)} ms`.padStart(18)} ${String(health.asked).padStart(9)} ${`${load.toFixed(0)} ms`.padStart(14)}`,
    );
  }
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
