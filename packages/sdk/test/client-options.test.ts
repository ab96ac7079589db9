// Client construction: a region or a base URL (exactly one), the injected fetch, and option checks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ComplianceClient, REGIONS, REGION_BASE_URLS, type FetchLike } from '../src/index.ts';
import { startScriptedServer, type ScriptedServer } from './support/scripted-server.ts';

const credentials = { clientId: 'cds_id_x', clientSecret: 'cds_secret_x' };

describe('client options', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());

  test('each region maps to its base URL', () => {
    assert.deepEqual([...REGIONS], ['in', 'us', 'eu', 'au']);
    for (const region of REGIONS) assert.equal(new ComplianceClient({ ...credentials, region }).baseUrl, REGION_BASE_URLS[region]);
  });

  test('a platform hosting several regions names their base URLs once; a region it omits keeps the default', () => {
    const regionBaseUrls = { eu: 'https://compliance.eu.platform.example/', in: 'https://compliance.in.platform.example' };
    assert.equal(new ComplianceClient({ ...credentials, region: 'eu', regionBaseUrls }).baseUrl, 'https://compliance.eu.platform.example');
    assert.equal(new ComplianceClient({ ...credentials, region: 'in', regionBaseUrls }).baseUrl, 'https://compliance.in.platform.example');
    assert.equal(new ComplianceClient({ ...credentials, region: 'us', regionBaseUrls }).baseUrl, REGION_BASE_URLS.us);
    assert.throws(
      () => new ComplianceClient({ ...credentials, region: 'eu', regionBaseUrls: { eu: 'nope' } }),
      /regionBaseUrls\.eu is not a URL/,
    );
  });

  test('exactly one of region and baseUrl', () => {
    assert.throws(() => new ComplianceClient({ ...credentials }), /either region or baseUrl/);
    assert.throws(() => new ComplianceClient({ ...credentials, region: 'us', baseUrl: 'https://x.example' }), /either region or baseUrl/);
    assert.throws(() => new ComplianceClient({ ...credentials, region: 'uk' as never }), /region must be one of/);
    assert.throws(() => new ComplianceClient({ ...credentials, baseUrl: 'not a url' }), /not a URL/);
    assert.throws(() => new ComplianceClient({ ...credentials, baseUrl: 'ftp://x.example' }), /http\(s\)/);
    assert.throws(() => new ComplianceClient({ ...credentials, baseUrl: 'https://x.example/?a=1' }), /query/);
  });

  test('credentials and numbers are checked', () => {
    assert.throws(() => new ComplianceClient({ clientId: '', clientSecret: 's', region: 'us' }), /clientId/);
    assert.throws(() => new ComplianceClient({ clientId: 'i', clientSecret: '', region: 'us' }), /clientSecret/);
    assert.throws(() => new ComplianceClient({ ...credentials, region: 'us', maxRetries: -1 }), /maxRetries/);
    assert.throws(() => new ComplianceClient({ ...credentials, region: 'us', maxRetries: 1.5 }), /maxRetries/);
    assert.throws(() => new ComplianceClient({ ...credentials, region: 'us', timeoutMs: 0 }), /timeoutMs/);
  });

  test('a base URL with a path prefix keeps it (a proxy in front of the service)', async () => {
    const client = new ComplianceClient({ ...credentials, baseUrl: `${server.url}/compliance/` });
    assert.equal(client.baseUrl, `${server.url}/compliance`);
    await client.frameworks.list();
    assert.equal(server.tokenRequests[0].path, '/compliance/oauth/token');
    assert.equal(server.requests[0].path, '/compliance/v1/frameworks');
  });

  test('the injected fetch sends every request', async () => {
    const seen: string[] = [];
    const fetchSpy: FetchLike = (input, init) => {
      seen.push(`${init.method} ${input}`);
      return fetch(input, init);
    };
    const client = new ComplianceClient({ ...credentials, baseUrl: server.url, fetch: fetchSpy });
    await client.controls.get('c/1 2', { fields: ['mappedRisks'] });
    assert.deepEqual(seen, [`POST ${server.url}/oauth/token`, `GET ${server.url}/v1/controls/c%2F1%202?fields=mappedRisks`]);
  });
});
