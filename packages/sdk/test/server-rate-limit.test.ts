// The real service's rate limits through the SDK, on every rate-limit store: a walk that needs
// more requests than one window allows waits out each 429's Retry-After and finishes; a token
// endpoint over its limit is waited out the same way; with retries off, the 429 is thrown with
// its Retry-After.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { stores } from '../../../test/harness/engines.ts';
import { findingFixtures } from '../../../test/harness/fixtures-findings.ts';
import { ComplianceClient, RateLimitError, type FetchLike } from '../src/index.ts';

for (const store of stores) {
  describe(`SDK under the service's rate limits (${store} store)`, () => {
    let server: TestServer;
    let credentials: { clientId: string; clientSecret: string };
    const statuses: number[] = [];
    const recording: FetchLike = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };

    before(async () => {
      // 4 requests per 2-second window for /v1, 2 token requests per 2 seconds.
      server = await startServer({
        store,
        env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_SEC: '2', TOKEN_RATE_LIMIT_MAX: '2', TOKEN_RATE_LIMIT_WINDOW_SEC: '2' },
      });
      const client = await createOrgWithCredential(server.system);
      credentials = client;
      await findingFixtures(server.database.db, client.organizationId).manyVulnerabilities(
        Array.from({ length: 450 }, (_, i) => ({
          source: 'aws',
          key: `VUL-${String(i).padStart(4, '0')}`,
          status: 'open',
          severity: 'low',
          firstSeen: 1_700_000_000_000 + i,
        })),
      );
    });
    after(() => server.close());

    test('a walk longer than one window waits for Retry-After and collects everything', async () => {
      statuses.length = 0;
      const sdk = new ComplianceClient({ baseUrl: server.url, ...credentials, fetch: recording, maxRetries: 5 });
      const items = await sdk.vulnerabilities.list({ count: 50 }).toArray({ limit: 1000 });
      assert.equal(items.length, 450);
      assert.equal(new Set(items.map((v) => v.vulnerabilityId)).size, 450);
      assert.ok(statuses.includes(429), `the walk hit the limit: ${statuses}`);
      assert.equal(statuses.filter((s) => s === 200).length, 1 + 9, 'one token and nine pages succeeded');
    });

    test('with retries off the 429 is thrown with Retry-After and details', async () => {
      const sdk = new ComplianceClient({ baseUrl: server.url, ...credentials, maxRetries: 0 });
      await sdk.auth.getAccessToken();
      const calls = await Promise.allSettled(Array.from({ length: 10 }, () => sdk.frameworks.list()));
      const limited = calls.filter((c) => c.status === 'rejected').map((c) => (c as PromiseRejectedResult).reason);
      assert.ok(limited.length >= 2, `${limited.length} of 10 refused`);
      for (const err of limited) {
        assert.ok(err instanceof RateLimitError);
        assert.equal(err.code, 'rate_limit_exceeded');
        assert.ok(err.retryAfterSec! >= 1 && err.retryAfterSec! <= 2);
        assert.deepEqual(err.details, [{ retryAfterSec: err.retryAfterSec }]);
      }
    });

    test('token requests over their limit are retried after Retry-After', async () => {
      const tokenStatuses: number[] = [];
      const watchTokens: FetchLike = async (input, init) => {
        const res = await fetch(input, init);
        if (input.endsWith('/oauth/token')) tokenStatuses.push(res.status);
        return res;
      };
      // Five token requests against two per window: whatever the window boundaries, some are refused.
      const clients = Array.from(
        { length: 5 },
        () => new ComplianceClient({ baseUrl: server.url, ...credentials, fetch: watchTokens, maxRetries: 6 }),
      );
      const tokens = await Promise.all(clients.map((c) => c.auth.getAccessToken()));
      assert.equal(new Set(tokens).size, 5);
      assert.ok(tokenStatuses.includes(429), `statuses: ${tokenStatuses}`);
      assert.equal(tokenStatuses.filter((s) => s === 200).length, 5);
    });
  });
}
