import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createOrgWithCredential, getToken, startServer, type Client, type TestServer } from './server.ts';
import { fixtures } from './fixtures.ts';
import type { DialectName } from '../../src/storage/db/connect.ts';

export const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
export const TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** One request with a deadline; a hang or a dropped connection fails the property with the reason. */
export async function send(url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array }): Promise<Answer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await res.text();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError') throw new Error(`no answer within ${TIMEOUT_MS} ms (hang)`);
    throw new Error(`the request failed without an HTTP answer: ${e.name}: ${e.message} ${e.cause?.code ?? ''} ${e.cause?.message ?? ''}`);
  }
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, text, body };
}

export const show = (a: Answer) => `${a.status} ${a.text.length > 600 ? `${a.text.slice(0, 600)}…` : a.text}`;

/** Not a 5xx, and a refusal is the spec's `400 validation_failed` with the `/v1` error body. */
export function assertRefusal(a: Answer) {
  assert.ok(a.status < 500, `server error: ${show(a)}`);
  assert.equal(a.status, 400, `expected 400 validation_failed, got ${show(a)}`);
  assert.ok(a.body && typeof a.body === 'object', `error body is not JSON: ${show(a)}`);
  assert.deepEqual(Object.keys(a.body).sort(), ['error', 'meta'], show(a));
  const { error, meta } = a.body;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'details', 'message'], show(a));
  assert.equal(error.code, 'validation_failed', show(a));
  assert.equal(typeof error.message, 'string', show(a));
  assert.ok(Array.isArray(error.details), show(a));
  for (const d of error.details) {
    assert.equal(typeof d?.field, 'string', `detail without field: ${show(a)}`);
    assert.equal(typeof d?.message, 'string', `detail without message: ${show(a)}`);
  }
  assert.equal(typeof meta?.requestId, 'string', show(a));
  assert.equal(meta.requestId, a.headers.get('x-request-id'), show(a));
}

let keySeq = 0;
const runTag = randomBytes(4).toString('hex');
export const newKey = () => `fuzz-${runTag}-${Date.now().toString(36)}-${++keySeq}`;

// ---------------------------------------------------------------------------------------------
// Database probes (straight from the tables, not through the API)

export async function idempotencyRecord(server: TestServer, client: Client, key: string) {
  return server.database.db.kysely
    .selectFrom('idempotency_records')
    .select(['state', 'status_code'])
    .where('credential_id', '=', client.credentialId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// Shared by every write

export const PEOPLE = [
  ['Ada Admin', 'ada@example.com'],
  ['Bob Builder', 'Bob.Builder@Example.com'],
] as const;

/** Exactly n code points (the unit AJV counts in maxLength): astral characters stress length checks. */
export const codePointString = (n: fc.Arbitrary<number>) =>
  fc.tuple(fc.constantFrom('a', 'é', '文', '😀', '\u{1F468}\u200D\u{1F469}', '\u0000', ' '), n).map(([c, k]) => c.repeat(k));

/** Counts answers by status (and error code), shown as a test diagnostic: what the fuzz reached. */
export function tally() {
  const counts = new Map<string, number>();
  return {
    add(a: Answer) {
      const label = a.status >= 400 ? `${a.status} ${a.body?.error?.code ?? '?'}` : String(a.status);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    },
    toString: () =>
      [...counts]
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${k}: ${n}`)
        .join(', '),
  };
}

/** A server on every engine with its own blob directory, and many requests allowed per credential. */
export async function startFuzzServer(dialect: DialectName) {
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-fuzz-blobs-'));
  const server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', BLOB_DIR: blobDir } });
  return { server, blobDir };
}

export async function stopFuzzServer(server: TestServer, blobDir: string) {
  await server.close();
  fs.rmSync(blobDir, { recursive: true, force: true });
}

/** A Read & Write organization whose people are PEOPLE, and its token. */
export async function newWriterOrg(server: TestServer, name: string) {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
  const token = await getToken(server.url, client);
  const base = fixtures(server.database.db, client.organizationId);
  for (const [n, e] of PEOPLE) await base.person(n, e);
  return { client, token };
}
