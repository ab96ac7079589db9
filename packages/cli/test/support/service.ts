// The real service for the CLI's tests: the project's test harness starts the app in this process
// on loopback, over a fresh database of the given engine; one organization gets the demo data
// (about 500 findings, every status of every resource) and a credential of each access level.
// Rate limits are raised, since every CLI run requests a token and the tests run many.
import fs from 'node:fs';
import { loadDemoData } from '../../../../src/demo/generate.ts';
import { bumpDataVersions } from '../../../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../../../src/shared/data-versions.ts';
import type { DialectName } from '../../../../src/storage/db/connect.ts';
import { addCredential, createOrgWithCredential, startServer, type Client, type TestServer } from '../../../../test/harness/server.ts';
import { ComplianceClient } from '../../../sdk/src/index.ts';
import { makeHome, runCli, type CliResult, type RunOptions } from './cli.ts';

export { dialects } from '../../../../test/harness/engines.ts';

export const GENEROUS_LIMITS = { RATE_LIMIT_MAX: '100000', TOKEN_RATE_LIMIT_MAX: '100000', UNAUTHENTICATED_RATE_LIMIT_MAX: '100000' };

export interface CliService {
  server: TestServer;
  organizationId: string;
  readOnly: Client;
  readWrite: Client;
  home: string;
  /** the SDK on the read-only credential, for the expected answers */
  sdk: ComplianceClient;
  /** environment variables that select `client` (default: read-only) on this server */
  envFor(client?: Pick<Client, 'clientId' | 'clientSecret'>): Record<string, string>;
  /** runs the CLI with the read-only credential unless `options.env` says otherwise */
  cli(args: string[], options?: Partial<RunOptions> & { client?: Pick<Client, 'clientId' | 'clientSecret'> }): Promise<CliResult>;
  close(): Promise<void>;
}

export async function startCliService(
  dialect: DialectName,
  options: { demo?: boolean /** more settings of the service */; env?: Record<string, string> } = {},
): Promise<CliService> {
  const server = await startServer({ dialect, env: { ...GENEROUS_LIMITS, ...options.env } });
  try {
    const readOnly = await createOrgWithCredential(server.system, { accessLevel: 'read_only', name: 'CLI Demo' });
    if (options.demo !== false) {
      await loadDemoData(server.database.db, readOnly.organizationId, { scale: 1 });
      await bumpDataVersions(server.database.db.kysely, readOnly.organizationId, DATA_KINDS);
    }
    const readWrite = await addCredential(server.system, readOnly.organizationId, 'read_write');
    const home = makeHome();
    const envFor = (client: Pick<Client, 'clientId' | 'clientSecret'> = readOnly) => ({
      COMPLIANCE_BASE_URL: server.url,
      COMPLIANCE_CLIENT_ID: client.clientId,
      COMPLIANCE_CLIENT_SECRET: client.clientSecret,
    });
    return {
      server,
      organizationId: readOnly.organizationId,
      readOnly,
      readWrite,
      home,
      sdk: new ComplianceClient({ baseUrl: server.url, clientId: readOnly.clientId, clientSecret: readOnly.clientSecret }),
      envFor,
      cli: (args, opts = {}) => runCli(args, { ...opts, home: opts.home ?? home, env: { ...envFor(opts.client), ...opts.env } }),
      close: async () => {
        await server.close();
        fs.rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}
