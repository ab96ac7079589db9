// Warm reads served from memory (issue 13) keep every promise of the cold path: a revocation or
// an access change is refused on the very next request, whichever node it reaches and whoever
// made it (the console of another node, `cds` in another process); a write acknowledged by one
// node is read by every other; answers are byte for byte those computed afresh, each with its own
// request ID; and the bytes kept stay within RESULT_CACHE_MAX_BYTES.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { createTestStore, dialects } from '../harness/engines.ts';
import { runCli } from '../harness/process.ts';
import { NoResultCache } from '../../src/domain/result-cache.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { changeCredentialAccess } from '../../src/domain/auth/change-credential-access.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import * as credentials from '../../src/storage/db/repositories/auth/credentials.ts';

/** The engine pairs a deployment runs on: SQLite alone, and PostgreSQL with Redis when available. */
const deployments: Array<{ dialect: 'sqlite' | 'postgres'; store: 'memory' | 'redis' }> = [{ dialect: 'sqlite', store: 'memory' }];
if (dialects.includes('postgres') && process.env.TEST_REDIS_URL) deployments.push({ dialect: 'postgres', store: 'redis' });

/** Waits until the server's rate-limit store answers (a Redis connection may still be coming up on a busy machine). */
const storeReady = async (server: TestServer) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await server.testStore.store.ping();
    } catch (err) {
      if (attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
};

const warm = async (url: string, token: string, path = '/v1/frameworks') => {
  for (let i = 0; i < 3; i++) assert.equal((await api(url, path, token)).status, 200);
};

for (const { dialect, store } of deployments) {
  describe(`warm reads stay exact (${dialect}, ${store})`, { concurrency: 1 }, () => {
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      a = await startServer({ dialect, store });
      // A second node on the same database and, with Redis, the same Redis (its own connection).
      const secondStore = store === 'redis' ? createTestStore('redis', a.testStore.prefix) : undefined;
      b = await startServer({ database: a.database, testStore: secondStore });
      await storeReady(a);
      await storeReady(b);
    });
    after(async () => {
      await b.close();
      await b.testStore.store.close();
      await a.close();
    });

    it('a revocation by `cds` in another process is refused on the next request of a warm node', async () => {
      const client = await createOrgWithCredential(a.system);
      const token = await getToken(a.url, client);
      await warm(a.url, token);
      await warm(b.url, token);
      const cli = await runCli(['credential', 'revoke', client.credentialId], { ...a.database.env, ...a.testStore.env });
      assert.equal(cli.code, 0, cli.stderr);
      for (const node of [a, b]) {
        const res = await api(node.url, '/v1/frameworks', token);
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'token_revoked');
      }
    });

    it("a revocation on one node is refused on the other's next request; an access change answers token_stale", async () => {
      const client = await createOrgWithCredential(a.system);
      const other = await addCredential(a.system, client.organizationId);
      const token = await getToken(a.url, client);
      const otherToken = await getToken(a.url, other);
      await warm(b.url, token);
      await warm(b.url, otherToken);
      await revokeCredential({ ctx: a.system, input: { credentialId: client.credentialId } });
      const revoked = await api(b.url, '/v1/frameworks', token);
      assert.equal(revoked.status, 401);
      assert.equal(revoked.body.error.code, 'token_revoked');
      await changeCredentialAccess({ ctx: a.system, input: { credentialId: other.credentialId, accessLevel: 'read_write' } });
      const stale = await api(b.url, '/v1/frameworks', otherToken);
      assert.equal(stale.status, 401);
      assert.equal(stale.body.error.code, 'token_stale');
    });

    it("a plan change made on one node restricts the other's next request", async () => {
      const client = await createOrgWithCredential(a.system);
      const token = await getToken(a.url, client);
      await warm(b.url, token);
      await updateOrganizationPlan({ ctx: a.system, input: { organizationId: client.organizationId, plan: 'control' } });
      const res = await api(b.url, '/v1/frameworks', token);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'plan_restricted');
    });

    it('a finding created through one node is in the next answer of the other, whose answer was warm', async () => {
      const client = await createOrgWithCredential(a.system, { accessLevel: 'read_write' });
      const token = await getToken(a.url, client);
      const path = '/v1/vulnerabilities?count=100';
      await warm(b.url, token, path);
      const before = await api(b.url, path, token);
      const created = await api(a.url, '/v1/vulnerabilities', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `warm-${dialect}` },
        body: JSON.stringify({
          vulnerabilityId: dialect === 'sqlite' ? 'VUL-9301' : 'VUL-9302',
          title: 'Warm read',
          severity: 'high',
          status: 'open',
        }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const after = await api(b.url, path, token);
      assert.equal(after.body.meta.totalCount, before.body.meta.totalCount + 1);
      assert.ok(after.body.data.some((v: { vulnerabilityId: string }) => v.vulnerabilityId === created.body.data.vulnerabilityId));
    });

    if (store === 'redis') {
      it('when Redis loses its markers, nodes read the database again rather than trust what they kept', async () => {
        const client = await createOrgWithCredential(a.system);
        const token = await getToken(a.url, client);
        await warm(b.url, token);
        // A revocation whose announcement never reached Redis, then Redis losing every marker
        // (a restart without persistence): the node must not keep serving the token.
        await credentials.revokeCredential(a.database.db.kysely, client.credentialId, Date.now());
        const redis = new Redis(process.env.TEST_REDIS_URL!);
        try {
          const keys = await redis.keys(`${a.testStore.prefix}marker:*`);
          if (keys.length > 0) await redis.del(...keys);
        } finally {
          redis.disconnect();
        }
        const res = await api(b.url, '/v1/frameworks', token);
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'token_revoked');
      });
    }
  });
}

describe('kept answers are byte for byte those computed afresh', { concurrency: 1 }, () => {
  let cached: TestServer;
  let fresh: TestServer;
  let token: string;
  before(async () => {
    cached = await startServer();
    fresh = await startServer({ database: cached.database, cache: new NoResultCache() });
    const demo = await createDemoOrganization(cached.system, { scale: 1, name: 'Bytes' });
    token = await getToken(cached.url, demo.readOnly);
  });
  after(async () => {
    await fresh.close();
    await cached.close();
  });

  /** The body with its own request ID (checked against the header) replaced by a fixed one. */
  const answer = async (url: string, path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    assert.equal(res.status, 200, `${path}: ${text.slice(0, 300)}`);
    const id = res.headers.get('x-request-id')!;
    assert.equal(JSON.parse(text).meta.requestId, id);
    assert.equal(text.split(id).length, 2, 'the request ID appears once');
    const headers = Object.fromEntries(
      [...res.headers].filter(
        ([name]) => !['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length'].includes(name),
      ),
    );
    return { id, body: text.replace(id, 'req_ID'), headers, length: Buffer.byteLength(text) };
  };

  it('for every list and get route, first and repeated answers equal a freshly computed one', async () => {
    const first = async (path: string) => (await api(cached.url, path, token)).body.data[0];
    const control = await first('/v1/controls');
    const policy = await first('/v1/policies');
    const evidence = await first('/v1/evidence');
    const test = await first('/v1/tests');
    const page = (await api(cached.url, '/v1/vulnerabilities?count=50', token)).body;
    const id = (v: string) => encodeURIComponent(v);
    const paths = [
      '/v1/frameworks',
      '/v1/frameworks?fields=addedOn,tscSelections',
      '/v1/controls',
      '/v1/controls?status=non_compliant&fields=mappedFrameworkIds,addedOn',
      `/v1/controls/${id(control.controlId)}?fields=complianceOverview,mappedArtifacts,mappedRisks`,
      '/v1/policies',
      `/v1/policies/${id(policy.policyId)}`,
      '/v1/evidence',
      `/v1/evidence/${id(evidence.evidenceId)}?fields=attachments`,
      '/v1/tests',
      `/v1/tests/${id(test.testId)}`,
      '/v1/vulnerabilities?count=100',
      `/v1/vulnerabilities?count=50&nextCursor=${id(page.meta.nextCursor)}`,
      // vulnerabilityId is already percent-encoded (source%23key)
      `/v1/vulnerabilities/${page.data[0].vulnerabilityId}`,
    ];
    for (const path of paths) {
      const expected = await answer(fresh.url, path);
      const ids = new Set([expected.id]);
      for (let i = 0; i < 3; i++) {
        const got = await answer(cached.url, path);
        assert.equal(got.body, expected.body, path);
        assert.deepEqual(got.headers, expected.headers, path);
        assert.equal(got.length, expected.length, path);
        ids.add(got.id);
      }
      assert.equal(ids.size, 4, `${path}: every answer has its own request ID`);
    }
  });
});

describe('RESULT_CACHE_MAX_BYTES bounds the answers kept', () => {
  it('the answers of 1,000 organizations stay within the bound, and each stays right', async () => {
    const maxBytes = 16_384;
    const server = await startServer({ env: { RESULT_CACHE_MAX_BYTES: String(maxBytes) } });
    try {
      const held = async () => {
        const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith('cds_answer_cache_bytes '));
        assert.ok(line, 'the operations listener reports cds_answer_cache_bytes');
        return Number(line.split(' ')[1]);
      };
      const orgs: Array<{ name: string; token: string }> = [];
      for (let i = 0; i < 1000; i++) {
        const name = `Bound ${i}`;
        const client = await createOrgWithCredential(server.system, { name });
        orgs.push({ name, token: await getToken(server.url, client) });
      }
      let most = 0;
      for (const [i, org] of orgs.entries()) {
        const res = await api(server.url, '/v1/frameworks', org.token);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.data, []);
        if (i % 50 === 0) most = Math.max(most, await held());
      }
      const end = await held();
      assert.ok(end > maxBytes / 2, `answers are kept (${end} bytes)`);
      assert.ok(Math.max(most, end) <= maxBytes, `at most ${maxBytes} bytes held (${Math.max(most, end)})`);
      // The oldest were dropped, and answer right again.
      const again = await api(server.url, '/v1/frameworks', orgs[0].token);
      assert.equal(again.status, 200);
      assert.equal(again.body.meta.requestId, again.headers.get('x-request-id'));
    } finally {
      await server.close();
    }
  });
});
