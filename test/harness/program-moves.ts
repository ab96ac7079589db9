// Shared by test/http/evidence-review*.test.ts and test/http/policy-lifecycle*.test.ts: a small
// program (one framework, one requirement, one control) whose control turns on one artifact, the
// move requests with an Idempotency-Key, and the feed read after a move.
import assert from 'node:assert/strict';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from './server.ts';
import { fixtures } from './fixtures.ts';
import { artifactFixtures } from './fixtures-artifacts.ts';
import { readAll } from './events.ts';
import { newKey, show, type Response } from './vulnerability-writes.ts';
import type { DialectName } from '../../src/storage/db/connect.ts';

export { newKey, show };

/** A server for the move suites, with the clock given (tests check stamps against it). */
export function startMovesServer(dialect: DialectName, now: () => number = Date.now): Promise<TestServer> {
  return startServer({ dialect, now, env: { RATE_LIMIT_MAX: '100000' } });
}

/** An organization with a Read & Write credential (and a read-only one), a framework, a requirement and a control. */
export async function movesOrg(server: TestServer, name = 'Moves Org') {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
  const token = await getToken(server.url, client);
  const org = client.organizationId;
  const base = fixtures(server.database.db, org);
  const artifacts = artifactFixtures(server.database.db, org);
  const frameworkId = await base.framework('SOC 2');
  const requirementId = await base.requirement(frameworkId, 'CC1.1');
  const controlId = await base.control('AC-1', { requirementIds: [requirementId] });
  const approver = await base.person('Ada Approver', 'ada@example.com');
  return { client, token, org, base, artifacts, frameworkId, requirementId, controlId, approver };
}

/** POST (a move) or PATCH with a fresh key unless one is given; `body` undefined sends no body. */
export function write(
  server: TestServer,
  token: string,
  method: 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  key: string | null = newKey(),
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['idempotency-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return api(server.url, path, token, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The response is 400 validation_failed naming `field` (and, when given, a message matching `message`). */
export function assertRefused(res: Response, field: string, message?: RegExp, label = '') {
  assert.equal(res.status, 400, `${label}: ${show(res)}`);
  assert.equal(res.body.error.code, 'validation_failed', label);
  const details = res.body.error.details as Array<{ field: string; message: string }>;
  const hit = details.find((d) => d.field === field);
  assert.ok(hit, `${label}: details should name ${field}, got ${JSON.stringify(details)}`);
  if (message) assert.match(hit.message, message, label);
}

/** The feed's events after `after` (an eventId, or from the start). */
export async function eventsSince(server: TestServer, token: string, cursorEvents: number): Promise<any[]> {
  const { events } = await readAll(server, token);
  return events.slice(cursorEvents);
}

/** How many events the feed holds now. */
export async function feedLength(server: TestServer, token: string): Promise<number> {
  return (await readAll(server, token)).events.length;
}

/** The stamp a credential's writes carry (docs/decisions/program-writes.md, "Who did it"). */
export async function credentialStamp(server: TestServer, credentialId: string): Promise<{ name: string; email: string }> {
  const row = await server.database.db.kysely
    .selectFrom('credentials')
    .select(['name', 'client_id'])
    .where('id', '=', credentialId)
    .executeTakeFirstOrThrow();
  return { name: row.name, email: `${row.client_id}@credentials.invalid` };
}
