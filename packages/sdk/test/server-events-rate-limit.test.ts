// A follower polling as fast as it is allowed against the real service's rate limit, on every
// rate-limit store: with a window of 3 requests per 2 seconds and no retries, it paces itself on
// X-RateLimit-Remaining / X-RateLimit-Reset (and waits out any 429), never throws, and still
// yields the writes another credential makes meanwhile.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addCredential, createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { stores } from '../../../test/harness/engines.ts';
import { ComplianceClient, type ChangeEvent, type FetchLike } from '../src/index.ts';

for (const store of stores) {
  describe(`events.follow under the service's rate limit (${store} store)`, () => {
    let server: TestServer;
    let reader: ComplianceClient;
    let writer: ComplianceClient;
    const statuses: number[] = [];
    const recording: FetchLike = async (input, init) => {
      const res = await fetch(input, init);
      if (new URL(input).pathname === '/v1/events') statuses.push(res.status);
      return res;
    };

    before(async () => {
      server = await startServer({ store, env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SEC: '2', TOKEN_RATE_LIMIT_MAX: '100' } });
      const ro = await createOrgWithCredential(server.system, { accessLevel: 'read_only', name: 'Follow limits' });
      const rw = await addCredential(server.system, ro.organizationId, 'read_write');
      reader = new ComplianceClient({
        baseUrl: server.url,
        clientId: ro.clientId,
        clientSecret: ro.clientSecret,
        fetch: recording,
        maxRetries: 0,
      });
      writer = new ComplianceClient({ baseUrl: server.url, clientId: rw.clientId, clientSecret: rw.clientSecret, maxRetries: 5 });
    });
    after(() => server?.close());

    test('polls with no interval while three writes are made: paced to the window, no error, every write seen', async () => {
      const controller = new AbortController();
      const seen: ChangeEvent[] = [];
      const following = (async () => {
        for await (const e of reader.events.follow({ intervalMs: 0, signal: controller.signal })) seen.push(e);
      })();
      const written: string[] = [];
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 1500));
        written.push(
          (await writer.vulnerabilities.create({ vulnerabilityId: `VUL-${6100 + i}`, title: `t${i}`, severity: 'low', status: 'open' }))
            .data.vulnerabilityId,
        );
      }
      // The follower waits for the window to reset at times; give it up to 10 s to see the last write.
      for (let waited = 0; seen.length < written.length && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      await following; // ends quietly: no 429 escaped
      assert.deepEqual(
        seen.map((e) => e.resourceId),
        written,
      );
      const ok = statuses.filter((s) => s === 200).length;
      // About 3 requests per 2-second window over ~5-8 s: paced, not a busy loop.
      assert.ok(ok >= 4 && ok <= 20, `answered polls: ${ok} (${statuses.join(',')})`);
      assert.ok(
        statuses.every((s) => s === 200 || s === 429),
        `${statuses}`,
      );
    });
  });
}
