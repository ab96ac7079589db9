// GET /v1/events (issue 15) over real HTTP, on every database engine: commit-order pages with a
// never-null cursor a poller stores, filters by type and resource, scopes and plan, signed cursors
// (tampered, reused with other filters or by another organization: 400 naming nextCursor), and
// tenancy (another organization's events are never visible). The document marks it an extension.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, type TestServer } from '../harness/server.ts';
import { assertNoUncaughtException, NOW, startLocalDiskUploads, stopLocalDiskUploads, type Harness } from '../harness/uploads.ts';
import { minimal, newKey, patch, post, show } from '../harness/vulnerability-writes.ts';
import { feed, readAll, storedEvents } from '../harness/events.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { FEED_EVENT_TYPES } from '../../src/domain/events/schema.ts';
import { listEvents } from '../../src/domain/events/list.ts';
import { RESOURCES } from '../../src/domain/auth/scopes.ts';
import { INITIAL_DATA_VERSIONS } from '../../src/shared/data-versions.ts';
import { ServiceError } from '../../src/shared/errors.ts';
import { NoResultCache } from '../../src/domain/result-cache.ts';

function assertCursorRefused(res: { status: number; body: any }, label: string) {
  assert.equal(res.status, 400, `${label}: ${show(res as never)}`);
  assert.equal(res.body.error.code, 'validation_failed', label);
  assert.ok(
    res.body.error.details.some((d: { field: string }) => d.field === 'nextCursor'),
    `${label}: ${JSON.stringify(res.body.error.details)}`,
  );
}

for (const dialect of dialects) {
  describe(`GET /v1/events (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;

    before(async () => {
      ({ server, blobDir, h } = await startLocalDiskUploads(dialect, () => NOW, 'cds-feed-blobs-'));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    async function newWriter(name: string, plan?: string) {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name, plan });
      return { client, token: await getToken(server.url, client) };
    }

    const upload = (evidenceId: string) =>
      api(server.url, `/v1/evidence/${evidenceId}/attachments`, h.token, {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: (() => {
          const form = new FormData();
          form.append('evidenceDate', String(NOW - 3600_000));
          form.append('files', new Blob([new TextEncoder().encode('x\n')]), 'a.txt');
          return form;
        })(),
      });

    test('pages in commit order; nextCursor is never null and a stored one gives exactly what committed since', async () => {
      const { client, token } = await newWriter('Feed paging');
      const empty = await feed(server, token);
      assert.equal(empty.status, 200, show(empty as never));
      assert.deepEqual(empty.body.data, []);
      assert.equal(empty.body.meta.hasMore, false);
      assert.equal(typeof empty.body.meta.nextCursor, 'string');
      assert.equal(empty.body.meta.requestId, empty.headers.get('x-request-id'));
      assert.ok(empty.headers.get('x-ratelimit-limit'), 'counted like every /v1 request');
      const stored = empty.body.meta.nextCursor;

      for (let i = 0; i < 5; i++) assert.equal((await post(server, token, minimal(`VUL-0${100 + i}`))).status, 201);
      const pages: any[] = [];
      let cursor: string | undefined = stored;
      for (;;) {
        const res = await feed(server, token, { count: 2, nextCursor: cursor });
        assert.equal(res.status, 200, show(res as never));
        pages.push(res.body);
        assert.equal(typeof res.body.meta.nextCursor, 'string');
        cursor = res.body.meta.nextCursor;
        if (!res.body.meta.hasMore) break;
      }
      assert.deepEqual(
        pages.map((p) => [p.data.length, p.meta.hasMore]),
        [
          [2, true],
          [2, true],
          [1, false],
        ],
      );
      const ids = pages.flatMap((p) => p.data.map((e: any) => e.eventId));
      const rows = await storedEvents(server.database, client.organizationId);
      assert.deepEqual(
        ids,
        rows.map((r) => r.id),
      );
      const first = pages[0].data[0];
      assert.deepEqual(Object.keys(first), ['eventId', 'type', 'occurredAt', 'resourceType', 'resourceId', 'data']);
      assert.equal(first.resourceId, 'api%23VUL-0100');
      assert.deepEqual(first.data, rows[0].data);

      // Polling with the last cursor: nothing new, then exactly the next write.
      const idle = await feed(server, token, { nextCursor: cursor });
      assert.deepEqual(idle.body.data, []);
      assert.equal(idle.body.meta.hasMore, false);
      assert.equal((await patch(server, token, 'api%23VUL-0102', { reportLink: 'https://example.com/x' })).status, 200);
      const next = await feed(server, token, { nextCursor: idle.body.meta.nextCursor });
      assert.deepEqual(
        next.body.data.map((e: any) => [e.type, e.resourceId]),
        [['vulnerability.updated', 'api%23VUL-0102']],
      );
      assert.deepEqual(next.body.data[0].data.changes.reportLink, { after: 'https://example.com/x' });
    });

    test('filters: types and resourceId, alone and together; a cursor works only with the filters it was issued for', async () => {
      const { token } = await newWriter('Feed filters');
      for (const key of ['VUL-0001', 'VUL-0002']) assert.equal((await post(server, token, minimal(key))).status, 201);
      for (const link of ['https://example.com/1', 'https://example.com/2'])
        assert.equal((await patch(server, token, 'api%23VUL-0001', { reportLink: link })).status, 200);
      assert.equal((await patch(server, token, 'api%23VUL-0002', { reportLink: 'https://example.com/3' })).status, 200);

      const types = (await readAll(server, token, { types: 'vulnerability.updated' })).events;
      assert.deepEqual(
        types.map((e) => e.resourceId),
        ['api%23VUL-0001', 'api%23VUL-0001', 'api%23VUL-0002'],
      );
      const one = (await readAll(server, token, { resourceId: 'api%23VUL-0001' })).events;
      assert.deepEqual(
        one.map((e) => e.type),
        ['vulnerability.created', 'vulnerability.updated', 'vulnerability.updated'],
      );
      const both = await readAll(server, token, { types: 'vulnerability.created, vulnerability.updated', resourceId: 'api%23VUL-0002' });
      assert.deepEqual(
        both.events.map((e) => e.type),
        ['vulnerability.created', 'vulnerability.updated'],
      );
      assert.deepEqual((await readAll(server, token, { resourceId: 'api%23VUL-0404' })).events, []);

      // the same filters in another order or spelling share cursors; other filters do not
      const again = await feed(server, token, {
        types: 'vulnerability.updated,vulnerability.created',
        resourceId: 'api%23VUL-0002',
        nextCursor: both.cursor,
      });
      assert.equal(again.status, 200, show(again as never));
      assertCursorRefused(await feed(server, token, { types: 'vulnerability.updated', nextCursor: both.cursor }), 'other types');
      assertCursorRefused(await feed(server, token, { nextCursor: both.cursor }), 'no filters');
      assertCursorRefused(
        await feed(server, token, {
          types: 'vulnerability.created,vulnerability.updated',
          resourceId: 'api%23VUL-0001',
          nextCursor: both.cursor,
        }),
        'other resource',
      );
    });

    test('tampered, forged or foreign cursors answer 400 naming nextCursor; bad parameters name themselves', async () => {
      const { token } = await newWriter('Feed cursors');
      const other = await newWriter('Feed cursors other');
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 201);
      assert.equal((await post(server, token, minimal('VUL-0002'))).status, 201);
      const page = await feed(server, token, { count: 1 });
      const cursor: string = page.body.meta.nextCursor;
      const [payload, mac] = cursor.split('.');
      const forgedPayload = Buffer.from(JSON.stringify([0])).toString('base64url');
      const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
      for (const [label, value] of [
        ['payload altered', `${forgedPayload}.${mac}`],
        ['mac altered', `${payload}.${flip(mac)}`],
        ['no mac', payload],
        ['garbage', 'not-a-cursor'],
      ] as const) {
        assertCursorRefused(await feed(server, token, { nextCursor: value }), label);
      }
      // another organization's token with this organization's cursor
      assertCursorRefused(await feed(server, other.token, { nextCursor: cursor }), 'another organization');

      for (const [query, field] of [
        [{ count: 0 }, 'count'],
        [{ count: 501 }, 'count'],
        [{ count: 'ten' }, 'count'],
        [{ types: 'vulnerability.archived' }, 'types'],
        [{ types: 'credential.revoked' }, 'types'],
        [{ resourceId: 'x'.repeat(513) }, 'resourceId'],
        [{ nextCursor: 'x'.repeat(1025) }, 'nextCursor'],
        [{ since: '1' }, 'since'],
      ] as const) {
        const res = await feed(server, token, query as Record<string, string | number>);
        assert.equal(res.status, 400, `${JSON.stringify(query)}: ${show(res as never)}`);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === field),
          `${JSON.stringify(query)} should name ${field}: ${JSON.stringify(res.body.error.details)}`,
        );
      }
      const max = await feed(server, token, { count: 500 });
      assert.equal(max.status, 200);
      assert.equal(max.body.data.length, 2);
    });

    test("another organization's events are never visible", async () => {
      const a = await newWriter('Feed tenant A');
      const b = await newWriter('Feed tenant B');
      assert.equal((await post(server, a.token, minimal('VUL-0001'))).status, 201);
      assert.equal((await post(server, b.token, minimal('VUL-0001'))).status, 201);
      assert.equal((await patch(server, b.token, 'api%23VUL-0001', { reportLink: 'https://example.com/b' })).status, 200);
      const fromA = (await readAll(server, a.token)).events;
      const fromB = (await readAll(server, b.token)).events;
      assert.equal(fromA.length, 1);
      assert.equal(fromB.length, 2);
      const bIds = new Set((await storedEvents(server.database, b.client.organizationId)).map((e) => e.id));
      for (const e of fromA) assert.ok(!bIds.has(e.eventId));
      // the same resource ID in both organizations: each sees its own only
      assert.equal((await readAll(server, a.token, { resourceId: 'api%23VUL-0001' })).events.length, 1);
    });

    test('scopes and plan: without types, the types the plan includes; asking for another answers 403 plan_restricted', async () => {
      // h's organization has evidence events (from uploads) and vulnerability events
      const evidenceId = await h.evidence();
      assert.equal((await upload(evidenceId)).status, 201, 'an upload');
      assert.equal((await post(server, h.token, minimal('VUL-0777'))).status, 201);
      const all = (await readAll(server, h.token)).events;
      assert.ok(all.some((e) => e.type === 'evidence.attachments_added'));
      assert.ok(all.some((e) => e.type === 'vulnerability.created'));
      const { cursor } = await readAll(server, h.token);

      const org = h.client.organizationId;
      try {
        await updateOrganizationPlan({
          ctx: server.system,
          input: { organizationId: org, plan: 'framework,control,policy,test,vulnerability' },
        });
        const reader = await getToken(server.url, h.client);
        const limited = (await readAll(server, reader)).events;
        assert.ok(limited.length > 0);
        assert.ok(
          limited.every((e) => !e.type.startsWith('evidence.')),
          JSON.stringify(limited.map((e) => e.type)),
        );
        const refused = await feed(server, reader, { types: 'evidence.status_changed' });
        assert.equal(refused.status, 403, show(refused as never));
        assert.equal(refused.body.error.code, 'plan_restricted');
        const mixed = await feed(server, reader, { types: 'vulnerability.created,evidence.attachments_added' });
        assert.equal(mixed.body.error.code, 'plan_restricted');
        // a cursor stored before the plan changed still works: it is bound to the filters asked
        const later = await feed(server, reader, { nextCursor: cursor });
        assert.equal(later.status, 200, show(later as never));
      } finally {
        await updateOrganizationPlan({
          ctx: server.system,
          input: { organizationId: org, plan: 'framework,control,policy,evidence,test,vulnerability' },
        });
      }

      // a plan without any feed resource: an empty feed, not an error
      const bare = await newWriter('Feed bare plan', 'policy,test');
      const res = await feed(server, bare.token);
      assert.equal(res.status, 200, show(res as never));
      assert.deepEqual(res.body.data, []);
      assert.equal((await feed(server, bare.token, { types: 'control.status_changed' })).body.error.code, 'plan_restricted');
    });

    test("scopes: a token without a resource's read scope is not given its types, and is refused them by name", async () => {
      // Every access level holds every read scope, so no issued token lacks one: the verb is called
      // with an actor that holds vulnerability:read only (as a narrower grant would be).
      const { client, token } = await newWriter('Feed scopes');
      assert.equal((await post(server, token, minimal('VUL-0001'))).status, 201);
      const ctx = {
        ...server.system,
        cache: new NoResultCache(),
        actor: {
          organizationId: client.organizationId,
          credentialId: client.credentialId,
          scopes: new Set(['vulnerability:read']),
          plan: new Set<string>(RESOURCES),
          dataVersions: INITIAL_DATA_VERSIONS,
        },
      };
      const page = await listEvents({ ctx, input: {} });
      assert.deepEqual(
        page.data.map((e) => e.type),
        ['vulnerability.created'],
      );
      await assert.rejects(
        listEvents({ ctx, input: { types: ['vulnerability.created', 'control.status_changed'] } }),
        (err: unknown) => err instanceof ServiceError && err.code === 'forbidden' && /control:read/.test(err.message),
      );
      const none = await listEvents({ ctx: { ...ctx, actor: { ...ctx.actor, scopes: new Set(['policy:read']) } }, input: {} });
      assert.deepEqual(none.data, []);
    });

    test('the OpenAPI document lists GET /v1/events as an extension, with one documented shape per event type', async () => {
      const doc = (await api(server.url, '/openapi.json')).body;
      const op = doc.paths['/v1/events'].get;
      assert.equal(op['x-extension'], true);
      assert.equal(op.operationId, 'listEvents');
      const item = op.responses['200'].content['application/json'].schema.properties.data.items;
      const variants = item.anyOf ?? item.oneOf;
      assert.ok(Array.isArray(variants), JSON.stringify(item).slice(0, 200));
      const documented = variants.map((v: any) => v.properties.type.const ?? v.properties.type.enum?.[0]);
      assert.deepEqual(documented.sort(), [...FEED_EVENT_TYPES].sort());
      for (const v of variants) assert.ok(v.properties.data.description, `${JSON.stringify(v.properties.type)} has a documented data`);
      // the interface's own operations are not marked
      assert.equal(doc.paths['/v1/vulnerabilities'].get['x-extension'], undefined);
    });
  });
}
