// Malformed requests against a real server process (src/main.ts on SQLite), issue 28 item 6:
// - one at a time: the status, size and time of the answer to a 1 MiB body of unknown keys on
//   POST /console/api/session (no credential needed) and on POST /v1/vulnerabilities (a valid
//   read-write token), to a sign-in body of 4096 unknown keys (the most a body may hold and still
//   be parsed and validated), and to a query string of as many unknown parameters as the request line
//   allows on GET /v1/vulnerabilities;
// - a flood: rounds of fifteen such sign-in bodies sent at once from one address, while /healthz is
//   asked every 20 ms: how long /healthz took at worst (a node's heartbeat, which its peers read
//   to tell a live node from a dead one, is written on the same event loop: CLAIM_LIVENESS_MS),
//   and the server's CPU time over the flood (steadier than times on a shared machine).
//
//   node bench/malformed-flood.ts [--rounds N] [--env NAME=VALUE]...
//
// --env passes a setting to the server (e.g. --env MALFORMED_RATE_LIMIT_MAX=1000000 to measure
// the answers themselves with no address refused).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createOrganization } from '../src/domain/organizations/create.ts';
import { createCredential } from '../src/domain/auth/create-credential.ts';
import { ROOT, startChild } from './lib/child.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { formatTable, median, sizeOf } from './lib/table.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, env: { type: 'string', multiple: true } } });
const ROUNDS = Number(values.rounds);
const extraEnv = Object.fromEntries(
  (values.env ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const BODY_LIMIT = 1024 * 1024;

/** A JSON object of as many distinct three-character unknown keys as fit in `bytes` (at most `max`). */
function unknownKeys(bytes: number, max = Number.POSITIVE_INFINITY): { body: string; keys: number } {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size + 8 <= bytes && i < max; i++) {
    const key = alphabet[i % 64] + alphabet[Math.floor(i / 64) % 64] + alphabet[Math.floor(i / 4096) % 64];
    parts.push(`"${key}":0`);
    size += 8;
  }
  return { body: `{${parts.join(',')}}`, keys: parts.length };
}

/** A query string of `n`-character unknown parameters, as long as Node's header limit lets through. */
function unknownParams(chars: number): { query: string; params: number } {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size + 8 < chars; i++) {
    const part = `q${i.toString(36)}=1`;
    parts.push(part);
    size += part.length + 1;
  }
  return { query: parts.join('&'), params: parts.length };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-malformed-'));
const sqlitePath = path.join(dir, 'bench.sqlite');
const db = openDb({ sqlitePath });
await migrateToLatest(db);
const ctx = { db, region: 'us' as const, now: Date.now };
const organizationId = (await createOrganization({ ctx, input: { name: 'Bench malformed' } })).id;
const credential = await createCredential({
  ctx: { ...ctx, actor: { type: 'cli', id: null, label: 'bench', ip: null, userAgent: null, organizationId } },
  input: { accessLevel: 'read_write', name: 'bench' },
});
await db.close();

const server = await startChild([path.join(ROOT, 'src/main.ts')], {
  SQLITE_PATH: sqlitePath,
  DATA_DIR: dir,
  PORT: '0',
  HOST: '127.0.0.1',
  OPS_PORT: 'off',
  DEMO_ON_EMPTY: 'false',
  RATE_LIMIT_MAX: String(1e9),
  LOG_LEVEL: 'info',
  ...extraEnv,
});
try {
  const tokenRes = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const { body, keys } = unknownKeys(BODY_LIMIT - 64);
  const { query, params } = unknownParams(15 * 1024);
  // the most keys a body may hold and still be parsed and validated (MAX_JSON_ENTRIES)
  const most = unknownKeys(BODY_LIMIT, 4096);

  const signIn = () =>
    fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const create = () =>
    fetch(`${server.url}/v1/vulnerabilities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `bench-${Math.random()}` },
      body,
    });
  const signInMost = () =>
    fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: most.body });
  const list = () => fetch(`${server.url}/v1/vulnerabilities?${query}`, { headers: { authorization: `Bearer ${token}` } });

  /** status, answer bytes and milliseconds of one request */
  async function timed(send: () => Promise<Response>): Promise<[number, number, number]> {
    const start = performance.now();
    const res = await send();
    const bytes = (await res.arrayBuffer()).byteLength;
    return [res.status, bytes, performance.now() - start];
  }

  const rows: string[][] = [];
  for (const [name, send] of [
    [`POST /console/api/session, ${sizeOf(body.length)} body, ${keys} unknown keys`, signIn],
    [`POST /v1/vulnerabilities, ${sizeOf(body.length)} body, ${keys} unknown keys`, create],
    [`POST /console/api/session, ${sizeOf(most.body.length)} body, ${most.keys} unknown keys`, signInMost],
    [`GET /v1/vulnerabilities, ${params} unknown query parameters`, list],
  ] as const) {
    const runs: Array<[number, number, number]> = [];
    for (let i = 0; i < 5; i++) runs.push(await timed(send));
    const statuses = [...new Set(runs.map((r) => r[0]))].join(',');
    rows.push([name, statuses, sizeOf(median(runs.map((r) => r[1]))), `${median(runs.map((r) => r[2])).toFixed(1)} ms`]);
  }
  console.log(
    formatTable(['request (5 times, one at a time)', 'status', 'answer (median)', 'time (median)'], rows, [false, false, true, true]),
  );

  // The flood: every 20 ms a /healthz, timed, while rounds of fifteen sign-in bodies go at once.
  let polling = true;
  const health: number[] = [];
  const poller = (async () => {
    while (polling) {
      const start = performance.now();
      await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const statuses = new Map<number, number>();
  const cpuBefore = cpuSeconds(server.child.pid!);
  const floodStart = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await Promise.all(Array.from({ length: 15 }, () => timed(signIn)));
    for (const [status] of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const floodMs = performance.now() - floodStart;
  const floodCpuMs = (cpuSeconds(server.child.pid!) - cpuBefore) * 1000;
  polling = false;
  await poller;
  const sorted = [...health].sort((a, b) => a - b);
  console.log(
    `\nflood: ${ROUNDS} rounds of 15 sign-in bodies at once in ${floodMs.toFixed(0)} ms, answers ${[...statuses]
      .map(([s, n]) => `${n}× ${s}`)
      .join(', ')}; the server's CPU meanwhile ${floodCpuMs.toFixed(0)} ms (${(floodCpuMs / (15 * ROUNDS)).toFixed(1)} ms a request)`,
  );
  console.log(
    `/healthz during the flood (${health.length} requests): median ${median(health).toFixed(1)} ms, worst ${sorted.at(-1)!.toFixed(1)} ms`,
  );
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
