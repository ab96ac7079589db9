// The events feed through the SDK against the real service, on every database engine: writes made
// with the SDK appear as events in commit order, pages chain by cursor with hasMore, the walk's
// cursor picks up exactly the later writes, filters by type and resource, and a follower yields a
// write made while it polls, then stops on abort with the cursor to resume from.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { ComplianceClient, type ChangeEvent } from '../src/index.ts';
import { dialects } from './support/real-server.ts';

const finding = (n: number) => ({
  vulnerabilityId: `VUL-${String(7000 + n)}`,
  title: `ChangeEvent test finding ${n}`,
  severity: 'high' as const,
  status: 'open' as const,
});

for (const dialect of dialects) {
  describe(`the events feed through the SDK (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let sdk: ComplianceClient;
    const created: string[] = [];

    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', TOKEN_RATE_LIMIT_MAX: '1000' } });
      const writer = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name: 'SDK Events' });
      sdk = new ComplianceClient({ baseUrl: server.url, clientId: writer.clientId, clientSecret: writer.clientSecret });
      for (let n = 0; n < 12; n++) created.push((await sdk.vulnerabilities.create(finding(n))).data.vulnerabilityId);
    });
    after(() => server?.close());

    test('every write is an event, in commit order, and pages chain by cursor with hasMore', async () => {
      const walk = sdk.events.list({ types: ['vulnerability.created'], count: 5 });
      const pages: Array<[number, boolean]> = [];
      const events: ChangeEvent[] = [];
      for await (const page of walk.pages()) {
        pages.push([page.data.length, page.meta.hasMore]);
        events.push(...page.data);
      }
      assert.deepEqual(pages, [
        [5, true],
        [5, true],
        [2, false],
      ]);
      assert.deepEqual(
        events.map((e) => e.resourceId),
        created,
      );
      for (const e of events) {
        assert.equal(e.type, 'vulnerability.created');
        if (e.type === 'vulnerability.created') assert.equal(e.data.vulnerability.vulnerabilityId, e.resourceId);
      }
      assert.equal(new Set(events.map((e) => e.eventId)).size, 12);
      assert.ok(walk.cursor, 'the walk leaves the cursor to continue from');

      // Later writes, read from that cursor: exactly them, and nothing again.
      await sdk.vulnerabilities.update(created[3], { reportLink: 'https://reports.example.com/7003' });
      await sdk.vulnerabilities.create(finding(12));
      const later = sdk.events.list({ types: ['vulnerability.created'], nextCursor: walk.cursor });
      const next = await later.toArray({ limit: 100 });
      assert.deepEqual(
        next.map((e) => [e.type, e.resourceId]),
        [['vulnerability.created', 'api%23VUL-7012']],
      );
      assert.deepEqual(await sdk.events.list({ types: ['vulnerability.created'], nextCursor: later.cursor }).toArray({ limit: 10 }), []);
    });

    test('filters: by resource, and every readable type by default', async () => {
      const about = await sdk.events.list({ resourceId: created[3] }).toArray({ limit: 100 });
      assert.deepEqual(
        about.map((e) => e.type),
        ['vulnerability.created', 'vulnerability.updated'],
      );
      const updated = about[1];
      assert.ok(updated.type === 'vulnerability.updated');
      assert.deepEqual(updated.data.changes.reportLink, { after: 'https://reports.example.com/7003' }, 'no link before');
      const all = await sdk.events.list().toArray({ limit: 1000 });
      assert.ok(all.length >= 14, `at least the 13 creations and the update: ${all.length}`);
      assert.deepEqual(
        all.map((e) => e.eventId),
        [...all.map((e) => e.eventId)].sort(),
        'eventIds sort in commit order here',
      );
    });

    test('follow yields a write made while it polls, and stops on abort with the cursor after it', async () => {
      const controller = new AbortController();
      const follower = sdk.events.follow({ fromNow: true, types: ['vulnerability.created'], intervalMs: 100, signal: controller.signal });
      const seen: ChangeEvent[] = [];
      // Findings are written until the follower yields one: any made before it reached the end of
      // the feed are history and must not be yielded. A 20-second cap keeps a failure from hanging.
      const written: string[] = [];
      const cap = setTimeout(() => controller.abort(), 20_000);
      const writing = (async () => {
        for (let n = 20; seen.length === 0 && !controller.signal.aborted && n < 60; n++) {
          written.push((await sdk.vulnerabilities.create(finding(n))).data.vulnerabilityId);
          await new Promise((r) => setTimeout(r, 300));
        }
      })();
      for await (const e of follower) {
        seen.push(e);
        controller.abort();
      }
      clearTimeout(cap);
      await writing;
      assert.equal(seen.length, 1, 'a write made while following was yielded');
      assert.ok(written.includes(seen[0].resourceId), `only a write made while following: ${seen[0].resourceId}`);
      assert.ok(follower.cursor);
      // Resuming from the cursor gives the writes after the one yielded, each once.
      const after = written.slice(written.indexOf(seen[0].resourceId) + 1);
      after.push((await sdk.vulnerabilities.create(finding(99))).data.vulnerabilityId);
      const resumed = await sdk.events.list({ types: ['vulnerability.created'], nextCursor: follower.cursor }).toArray({ limit: 100 });
      assert.deepEqual(
        resumed.map((e) => e.resourceId),
        after,
      );
    });
  });
}
