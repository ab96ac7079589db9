// The real service for SDK tests: the project's test harness starts the app on loopback over a
// fresh database of the given engine; an organization gets the demo data (every status of every
// resource appears at scale 1) and one credential of each access level.
import { loadDemoData } from '../../../../src/demo/generate.ts';
import { addCredential, createOrgWithCredential, startServer, type TestServer } from '../../../../test/harness/server.ts';
import type { DialectName } from '../../../../src/storage/db/connect.ts';
import { ComplianceClient, type ClientOptions } from '../../src/index.ts';

export { dialects } from '../../../../test/harness/engines.ts';

export interface DemoService {
  server: TestServer;
  organizationId: string;
  readOnly: ComplianceClient;
  readWrite: ComplianceClient;
  /** a client with other options, for the read-write credential */
  clientWith(options: Partial<ClientOptions>): ComplianceClient;
  close(): Promise<void>;
}

export async function startDemoService(dialect: DialectName, env: Record<string, string> = {}): Promise<DemoService> {
  // The tests make hundreds of calls a minute; the default 50 would have them wait for Retry-After.
  const server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', TOKEN_RATE_LIMIT_MAX: '1000', ...env } });
  try {
    const ro = await createOrgWithCredential(server.system, { accessLevel: 'read_only', name: 'SDK Demo' });
    await loadDemoData(server.database.db, ro.organizationId, { scale: 1 });
    const rw = await addCredential(server.system, ro.organizationId, 'read_write');
    const clientWith = (options: Partial<ClientOptions>) =>
      new ComplianceClient({ baseUrl: server.url, clientId: rw.clientId, clientSecret: rw.clientSecret, ...options });
    return {
      server,
      organizationId: ro.organizationId,
      readOnly: new ComplianceClient({ baseUrl: server.url, clientId: ro.clientId, clientSecret: ro.clientSecret }),
      readWrite: clientWith({}),
      clientWith,
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}
