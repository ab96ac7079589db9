// Starts the real app on a loopback port over a real database and rate-limit store, and gives
// tests the helpers they share: organizations, credentials, tokens and an HTTP client.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { buildOpsApp } from '../../src/http/ops-server.ts';
import { createMetrics } from '../../src/http/plugins/metrics.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { BaseContext, SystemContext } from '../../src/domain/context.ts';
import { NoResultCache, type ResultCache } from '../../src/domain/result-cache.ts';
import { systemContext } from '../../src/system-context.ts';
import { openBlobStore } from '../../src/storage/blobs/open.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import { credentialView } from '../../src/domain/auth/credential-view.ts';
import type { CredentialView } from '../../src/domain/auth/schema.ts';
import { newCredentialRecord } from '../../src/domain/auth/new-credential-record.ts';
import { insertCredential } from '../../src/storage/db/repositories/auth/credentials.ts';
import { createAdmin } from '../../src/domain/console/create-admin.ts';
import type { AdminView } from '../../src/domain/console/admin-view.ts';
import type { AuditActor } from '../../src/domain/console/audit.ts';
import type { DialectName } from '../../src/storage/db/connect.ts';
import { createTestDatabase, createTestStore, type TestDatabase, type TestStore } from './engines.ts';
import { migrateToLatest } from '../../src/storage/db/migrate.ts';

export interface TestServer {
  url: string;
  /** the operations listener (/metrics, detailed /readyz), as main.ts serves it */
  opsUrl: string;
  app: FastifyInstance;
  config: Config;
  database: TestDatabase;
  testStore: TestStore;
  /** the app's settings and stores, without a result cache: verbs called directly see every write */
  system: SystemContext;
  close(): Promise<void>;
}

export interface StartOptions {
  dialect?: DialectName;
  store?: 'memory' | 'redis';
  env?: Record<string, string>;
  now?: () => number;
  /** reuse a database (another app on the same data) instead of creating one */
  database?: TestDatabase;
  testStore?: TestStore;
  /** the app's result cache (default: its own); a NoResultCache computes every answer afresh */
  cache?: ResultCache;
  /** resolves webhook endpoints' host names instead of the system resolver */
  lookupHost?: (host: string) => Promise<string[]>;
  /** the webhook worker's name resolution and attempt listener (app.ts, AppDeps.webhookDelivery) */
  webhookDelivery?: AppDeps['webhookDelivery'];
  /** false: every request through Fastify, none answered before routing (src/http/warm-reads.ts) */
  warmReads?: boolean;
  /** a listener of the time scheduler's batches (app.ts, AppDeps.time) */
  time?: AppDeps['time'];
}

/**
 * A Redis store answers `503` until its connection is up (it queues no command while offline, as
 * a server's must not): a test's first request on a loaded machine came before it (rate-limit.test.ts,
 * "two app instances", in a 53-minute run of the suite). The harness waits for it, as a server waits
 * for its dependencies before it reports ready.
 */
async function connected(testStore: TestStore): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    try {
      return await testStore.store.ping();
    } catch (err) {
      if (waited >= 10_000) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase(options.dialect ?? 'sqlite'));
  const testStore = options.testStore ?? createTestStore(options.store ?? 'memory');
  await connected(testStore);
  // The time scheduler moves fixtures' statuses (a published policy past its review date) in the
  // background: off unless the test asks for it (TIME_SCHEDULER: 'on', test/http/time-*.test.ts).
  const config = loadConfig({ ...database.env, ...testStore.env, LOG_LEVEL: 'silent', TIME_SCHEDULER: 'off', ...options.env });
  const now = options.now ?? Date.now;
  const metrics = createMetrics();
  const blobs = openBlobStore(config);
  const app = await buildApp(config, {
    db: database.db,
    rateLimitStore: testStore.store,
    blobs,
    now,
    logger: false,
    metrics,
    cache: options.cache,
    lookupHost: options.lookupHost,
    webhookDelivery: options.webhookDelivery,
    warmReads: options.warmReads,
    time: options.time,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const ops = await buildOpsApp({ db: database.db, store: testStore.store, metrics });
  const opsUrl = await ops.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  const ownsDatabase = !options.database;
  const ownsStore = !options.testStore;
  return {
    url: `http://127.0.0.1:${address.port}`,
    opsUrl,
    app,
    config,
    database,
    testStore,
    system: systemContext(config, { db: database.db, blobs, limiter: testStore.store, now, cache: new NoResultCache() }),
    close: async () => {
      await ops.close();
      await app.close();
      await blobs.close();
      if (ownsStore) await testStore.store.close();
      if (ownsDatabase) await database.drop();
    },
  };
}

export interface Client {
  clientId: string;
  clientSecret: string;
  credentialId: string;
  organizationId: string;
}

export async function createOrgWithCredential(
  system: BaseContext,
  options: { accessLevel?: 'read_only' | 'read_write'; plan?: string; name?: string } = {},
): Promise<Client> {
  const org = await createOrganization({ ctx: system, input: { name: options.name ?? 'Test Org', plan: options.plan } });
  return addCredential(system, org.id, options.accessLevel ?? 'read_only');
}

export async function addCredential(
  system: BaseContext,
  organizationId: string,
  accessLevel: 'read_only' | 'read_write' = 'read_only',
): Promise<Client> {
  const c = await insertCredentialFixture({ ctx: system, input: { organizationId, accessLevel } });
  return { clientId: c.clientId, clientSecret: c.clientSecret, credentialId: c.id, organizationId };
}

/**
 * A credential as createCredential makes it (same default name, secret and region), stored
 * without an audit entry: setting up a test is not an administrator's action, and tests read the
 * audit log expecting only theirs.
 */
export async function insertCredentialFixture({
  ctx,
  input,
}: {
  ctx: BaseContext;
  input: { organizationId: string; accessLevel: 'read_only' | 'read_write'; name?: string };
}): Promise<CredentialView & { clientSecret: string }> {
  const { record, clientSecret } = newCredentialRecord(ctx, input);
  await insertCredential(ctx.db.kysely, record);
  return { ...credentialView(record), clientSecret };
}

/** The console administrator the browser tests sign in as, created by an operator as test set-up. */
export function createConsoleAdmin(
  system: BaseContext,
  input: { organizationId: string; email: string; password: string },
): Promise<AdminView> {
  return createAdminFor({ ctx: system, input, actor: { type: 'cli', id: null, label: 'e2e setup', ip: null, userAgent: null } });
}

/** createAdmin for `organizationId`, acting as `actor` (an operator, as `cds admin create` does). */
export function createAdminFor({
  ctx,
  input,
  actor,
}: {
  ctx: BaseContext;
  input: { organizationId: string; email: string; password: string };
  actor: AuditActor;
}): Promise<AdminView> {
  return createAdmin({
    ctx: { ...ctx, actor: { ...actor, organizationId: input.organizationId } },
    input: { email: input.email, password: input.password },
  });
}

export async function requestToken(url: string, client: Pick<Client, 'clientId' | 'clientSecret'>) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

export async function getToken(url: string, client: Pick<Client, 'clientId' | 'clientSecret'>): Promise<string> {
  const { status, body } = await requestToken(url, client);
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  return body.access_token as string;
}

export async function api(url: string, path: string, token?: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  const res = await fetch(`${url}${path}`, { ...init, headers });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * Upgrade tests: `database`, filled at an earlier migration, migrated to the latest and served,
 * with a read-write token of `organizationId` and the rate limit out of the way.
 */
export async function upgradeAndServe(database: TestDatabase, organizationId: string): Promise<{ server: TestServer; token: string }> {
  await migrateToLatest(database.db);
  const server = await startServer({ database, env: { RATE_LIMIT_MAX: '100000' } });
  const token = await getToken(server.url, await addCredential(server.system, organizationId, 'read_write'));
  return { server, token };
}
