// RESULT_CACHE_MAX_OBJECT_BYTES bounds the heap the result cache keeps, not an entry count: the
// estimate of each entry (src/domain/estimate-bytes.ts) must never be below the heap its result
// really keeps, or the bound would not hold. Measured on the results of a demo organization's
// every list, as the service caches them, with the heap measured after full collections. And the
// setting reaches the service: many organizations' results stay within it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { addCredential, api, getToken, startServer, type TestServer } from '../harness/server.ts';
import { ResultCache } from '../../src/domain/result-cache.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const LISTS = [
  '/v1/frameworks',
  '/v1/controls',
  '/v1/policies',
  '/v1/evidence',
  '/v1/tests',
  '/v1/vulnerabilities?count=100',
  '/v1/vulnerabilities?count=50&status=open&fields=cvssScore,resourcesCount,firstSeen',
];

const heapUsed = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

describe('the result cache is bounded by the heap its entries keep', { concurrency: 1 }, () => {
  let server: TestServer;
  const cache = new ResultCache();
  const tokens: string[] = [];
  before(async () => {
    server = await startServer({ cache });
    for (const seed of [1, 2]) {
      const org = await createOrganization({ ctx: server.system, input: { name: `Demo ${seed}` } });
      await loadDemoData(server.database.db, org.id, { scale: 1, seed });
      await bumpDataVersions(server.database.db.kysely, org.id, DATA_KINDS);
      tokens.push(await getToken(server.url, await addCredential(server.system, org.id)));
    }
  });
  after(async () => server?.close());

  it("the estimate of a demo organization's cached lists is at least the heap they keep", async () => {
    const readAll = async (token: string) => {
      for (const path of LISTS) assert.equal((await api(server.url, path, token)).status, 200, path);
    };
    // the first organization's reads compile the code paths and fill the statement caches
    await readAll(tokens[0]);
    await readAll(tokens[0]);
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    const estimatedBefore = cache.bytesHeld;
    const before = heapUsed();
    await readAll(tokens[1]);
    await settle();
    const kept = heapUsed() - before;
    const estimated = cache.bytesHeld - estimatedBefore;
    assert.ok(kept > 100_000, `the second organization's lists keep heap (${kept} bytes)`);
    assert.ok(estimated >= kept, `estimated ${estimated} bytes, at least the ${kept} bytes kept`);
    // and not so generous that the budget holds a small part of what it could
    assert.ok(estimated <= 4 * kept, `estimated ${estimated} bytes, at most four times the ${kept} bytes kept`);
  });
});

describe('RESULT_CACHE_MAX_OBJECT_BYTES bounds the results kept', () => {
  it('the results of 60 organizations stay within the bound, reported on the operations listener', async () => {
    const maxBytes = 256 * 1024;
    const server = await startServer({ env: { RESULT_CACHE_MAX_OBJECT_BYTES: String(maxBytes) } });
    try {
      const held = async () => {
        const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith('cds_result_cache_bytes '));
        assert.ok(line, 'the operations listener reports cds_result_cache_bytes');
        return Number(line.split(' ')[1]);
      };
      let most = 0;
      for (let i = 0; i < 60; i++) {
        const org = await createOrganization({ ctx: server.system, input: { name: `Bound ${i}` } });
        await loadDemoData(server.database.db, org.id, { scale: 0.05, seed: i + 1 });
        await bumpDataVersions(server.database.db.kysely, org.id, DATA_KINDS);
        const token = await getToken(server.url, await addCredential(server.system, org.id));
        for (const path of ['/v1/frameworks', '/v1/controls', '/v1/vulnerabilities']) {
          assert.equal((await api(server.url, path, token)).status, 200, path);
        }
        if (i % 10 === 0) most = Math.max(most, await held());
      }
      const end = await held();
      assert.ok(end > maxBytes / 2, `results are kept (${end} bytes)`);
      assert.ok(Math.max(most, end) <= maxBytes, `at most ${maxBytes} bytes held (${Math.max(most, end)})`);
    } finally {
      await server.close();
    }
  });
});
