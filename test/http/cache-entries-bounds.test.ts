// Memory across organizations: every per-organization cache of a node is bounded by a setting, so
// a platform hosting thousands of organizations knows what a node keeps for them (issue 36). The
// grants checked in memory (GRANT_CACHE_MAX_ENTRIES) and the answers held for warm reads
// (WARM_READS_MAX_ENTRIES) stay within their settings while more organizations than that read,
// as the operations listener reports (cds_cache_entries); and 0 keeps none, answers unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { dialects } from '../harness/engines.ts';

// Grants are kept where a change can be proved without the database: SQLite's change stamp, or
// Redis's markers beside PostgreSQL (src/system-context.ts).
const deployments: Array<{ dialect: 'sqlite' | 'postgres'; store: 'memory' | 'redis' }> = [{ dialect: 'sqlite', store: 'memory' }];
if (dialects.includes('postgres') && process.env.TEST_REDIS_URL) deployments.push({ dialect: 'postgres', store: 'redis' });

const ORGANIZATIONS = 9;

async function cacheEntries(server: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
  const entries: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^cds_cache_entries\{cache="([a-z_]+)"\} (\d+)$/.exec(line);
    if (match) entries[match[1]] = Number(match[2]);
  }
  return entries;
}

/** Each organization takes a token and reads its controls three times (the first computes, the next are warm). */
async function readAsManyOrganizations(server: TestServer) {
  for (let i = 0; i < ORGANIZATIONS; i++) {
    const token = await getToken(server.url, await createOrgWithCredential(server.system, { name: `Tenant ${i}` }));
    for (let read = 0; read < 3; read++) {
      const answer = await api(server.url, '/v1/controls', token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
  }
}

for (const { dialect, store } of deployments) {
  describe(`per-organization caches are bounded by their settings (${dialect}, ${store})`, { concurrency: 1 }, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, store, env: { GRANT_CACHE_MAX_ENTRIES: '3', WARM_READS_MAX_ENTRIES: '4' } });
    });
    after(async () => server?.close());

    it(`${ORGANIZATIONS} organizations reading: at most 3 grants and 4 warm answers kept, reported as cds_cache_entries`, async () => {
      await readAsManyOrganizations(server);
      const entries = await cacheEntries(server);
      assert.ok(entries.grants >= 1 && entries.grants <= 3, `grants kept: ${entries.grants} (1 to 3)`);
      assert.ok(entries.warm_reads >= 1 && entries.warm_reads <= 4, `warm answers held: ${entries.warm_reads} (1 to 4)`);
    });
  });

  describe(`0 turns a per-organization cache off (${dialect}, ${store})`, { concurrency: 1 }, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, store, env: { GRANT_CACHE_MAX_ENTRIES: '0', WARM_READS_MAX_ENTRIES: '0' } });
    });
    after(async () => server?.close());

    it('no grant and no warm answer is kept, and every read still answers', async () => {
      await readAsManyOrganizations(server);
      assert.deepEqual(await cacheEntries(server), { grants: 0, warm_reads: 0 });
    });
  });
}
