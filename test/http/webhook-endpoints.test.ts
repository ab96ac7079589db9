// The webhook endpoints admin API (/console/api/webhook-endpoints) over HTTP, on every database
// engine: registration with the secret shown once, the address policy at registration (literal
// addresses in every spelling, names resolving to private addresses through an injected lookup,
// all allowed with WEBHOOKS_ALLOW_PRIVATE_ADDRESSES), changes, disabling and re-enabling, deletion
// stopping pending deliveries, secret rotation with its overlap, CSRF, isolation between
// organizations, and the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { createAdminFor, createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CONSOLE_PASSWORD, consoleCall, consoleSignIn, type Signed } from '../harness/console-session.ts';
import { liveSigningSecrets } from '../../src/domain/webhooks/signing-secrets.ts';
import { MAX_ENDPOINTS_PER_ORG } from '../../src/domain/webhooks/schema.ts';

const cli = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };
const BASE = '/console/api/webhook-endpoints';
const OVERLAP_SEC = 3600;
// the clock moves past rotation overlaps: sessions outlast them
const SESSIONS = { CONSOLE_SESSION_IDLE_SEC: String(30 * 86_400), CONSOLE_SESSION_MAX_SEC: String(30 * 86_400) };
// The delivery rows these tests insert are read, never sent: no worker runs.
const NO_WORKER = { WEBHOOK_DELIVERY: 'off' };

// What the injected resolver answers: the only DNS these tests use.
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.8'],
  'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
  'v6.example.com': ['fd00::5'],
  'metadata.example.com': ['169.254.169.254'],
};
const lookupHost = async (host: string) => {
  const answer = DNS[host];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answer;
};

for (const dialect of dialects) {
  describe(`webhook endpoints admin API (${dialect})`, () => {
    let server: TestServer;
    let open: TestServer;
    let clock = Date.UTC(2026, 10, 24, 9, 0);
    let a: Signed;
    let b: Signed;
    let orgA: string;

    before(async () => {
      server = await startServer({
        dialect,
        now: () => clock,
        lookupHost,
        env: { ...SESSIONS, WEBHOOK_SECRET_OVERLAP_SEC: String(OVERLAP_SEC) },
      });
      // a second node on the same data, for local development: private addresses allowed
      open = await startServer({
        database: server.database,
        now: () => clock,
        lookupHost,
        env: { ...SESSIONS, ...NO_WORKER, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' },
      });
      orgA = (await createOrgWithCredential(server.system, { name: 'Org A' })).organizationId;
      const orgB = (await createOrgWithCredential(server.system, { name: 'Org B' })).organizationId;
      await createAdminFor({
        ctx: server.system,
        input: { organizationId: orgA, email: 'ada@example.com', password: CONSOLE_PASSWORD },
        actor: cli,
      });
      await createAdminFor({
        ctx: server.system,
        input: { organizationId: orgB, email: 'bob@example.com', password: CONSOLE_PASSWORD },
        actor: cli,
      });
      a = await consoleSignIn(server.url, 'ada@example.com');
      b = await consoleSignIn(server.url, 'bob@example.com');
    });
    after(async () => {
      await open.close();
      await server.close();
    });

    const create = (s: Signed, body: unknown, on = server) => consoleCall(on.url, s, BASE, { method: 'POST', body });
    const ctxA = () => ({ ...server.system, actor: { ...cli, organizationId: orgA } });

    async function insertDelivery(endpointId: string, status: 'pending' | 'succeeded' | 'failed', organizationId = orgA) {
      const id = randomUUID();
      await server.database.db.kysely
        .insertInto('webhook_deliveries')
        .values({
          id,
          organization_id: organizationId,
          endpoint_id: endpointId,
          event_id: `evt_${randomUUID()}`,
          event_type: 'vulnerability.created',
          payload: '{}',
          status,
          next_attempt_at: clock,
          created_at: clock,
        })
        .execute();
      return id;
    }
    const deliveryStatus = async (id: string) => ({
      ...(await server.database.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['status', 'last_error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()),
    });

    test('registers an endpoint: 201 with the secret, shown once; list and get never show it', async () => {
      const res = await create(a, {
        url: 'https://hooks.example.com/cds',
        description: '  SIEM  ',
        eventTypes: ['vulnerability.updated', 'vulnerability.created'],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const created = res.body.data;
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(
        { ...created, endpointId: undefined, secret: undefined },
        {
          endpointId: undefined,
          secret: undefined,
          url: 'https://hooks.example.com/cds',
          description: 'SIEM',
          // in the catalog's order, whatever order they were given in
          eventTypes: ['vulnerability.created', 'vulnerability.updated'],
          status: 'enabled',
          disabledReason: null,
          createdAt: clock,
          updatedAt: clock,
        },
      );
      const list = await consoleCall(server.url, a, BASE);
      const got = await consoleCall(server.url, a, `${BASE}/${created.endpointId}`);
      assert.equal(got.status, 200);
      const { secret, ...shown } = created;
      assert.deepEqual(got.body.data, shown);
      assert.deepEqual(list.body.data.at(-1), shown);
      for (const body of [list.body, got.body]) assert.ok(!JSON.stringify(body).includes(secret.slice(6)), 'no secret after creation');
      // stored encrypted, and the one that signs
      const row = await server.database.db.kysely
        .selectFrom('webhook_endpoint_secrets')
        .selectAll()
        .where('endpoint_id', '=', created.endpointId)
        .executeTakeFirstOrThrow();
      assert.ok(!row.secret_ciphertext.includes(secret.slice(6)));
      assert.deepEqual(await liveSigningSecrets(server.system, created.endpointId, clock), [secret]);
    });

    test('"*" subscribes to every type and is stored alone', async () => {
      const res = await create(a, { url: 'https://hooks.example.com/all', eventTypes: ['credential.created', '*'] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.eventTypes, ['*']);
      assert.equal(res.body.data.description, '');
    });

    test('bad bodies are 400 validation_failed naming the field, and register nothing', async () => {
      const before = (await consoleCall(server.url, a, BASE)).body.data.length;
      const cases: [unknown, string, RegExp?][] = [
        [{ eventTypes: ['*'] }, 'url'],
        [{ url: 'https://hooks.example.com/' }, 'eventTypes'],
        [{ url: 'https://hooks.example.com/', eventTypes: [] }, 'eventTypes'],
        [{ url: 'https://hooks.example.com/', eventTypes: ['vulnerability.archived'] }, 'eventTypes'],
        [{ url: 'https://hooks.example.com/', eventTypes: ['*'], description: 'x'.repeat(501) }, 'description'],
        [{ url: 'https://hooks.example.com/', eventTypes: ['*'], description: 'bad\u202Ename' }, 'description', /invisible/],
        [{ url: 'https://hooks.example.com/', eventTypes: ['*'], secret: 'mine' }, 'secret'],
        [{ url: 'ftp://hooks.example.com/', eventTypes: ['*'] }, 'url', /http/],
        [{ url: 'https://user:pw@hooks.example.com/', eventTypes: ['*'] }, 'url', /user name or password/],
        [{ url: 'https://hooks.example.com/#x', eventTypes: ['*'] }, 'url', /fragment/],
        [{ url: `https://hooks.example.com/${'a'.repeat(2100)}`, eventTypes: ['*'] }, 'url'],
        [{ url: 'https://nowhere.example.com/', eventTypes: ['*'] }, 'url', /could not be resolved/],
      ];
      for (const [body, field, message] of cases) {
        const res = await create(a, body);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 200));
        assert.equal(res.body.error.code, 'validation_failed');
        // an item of a list is named with its position (eventTypes[0])
        const detail = res.body.error.details.find((d: any) => d.field === field || d.field.startsWith(`${field}[`));
        assert.ok(detail, `${field} named in ${JSON.stringify(res.body.error.details)}`);
        if (message) assert.match(detail.message, message);
      }
      assert.equal((await consoleCall(server.url, a, BASE)).body.data.length, before);
    });

    test('SSRF: loopback, private, link-local, metadata and IPv6 forms are refused at registration, also through DNS', async () => {
      const refused: [string, RegExp][] = [
        ['http://127.0.0.1:8080/hook', /loopback/],
        ['http://localhost/hook', /loopback/],
        ['http://localhost./hook', /loopback/],
        ['http://0x7f.1/hook', /loopback/],
        ['http://017700000001/hook', /loopback/],
        ['http://[::1]/hook', /loopback/],
        ['http://[::ffff:127.0.0.1]/hook', /loopback/],
        ['http://10.1.2.3/hook', /private/],
        ['http://192.168.0.10/hook', /private/],
        ['http://172.20.0.1/hook', /private/],
        ['http://169.254.10.1/hook', /link-local/],
        ['http://[fe80::1]/hook', /link-local/],
        ['http://169.254.169.254/latest/meta-data/', /metadata/],
        ['http://[fd00:ec2::254]/', /metadata/],
        ['http://[fc00::1]/', /unique-local/],
        ['http://0.0.0.0/', /unspecified/],
        ['https://internal.example.com/hook', /resolves to 10\.0\.0\.8.*private/],
        ['https://mixed.example.com/hook', /resolves to 127\.0\.0\.1.*loopback/],
        ['https://v6.example.com/hook', /resolves to fd00::5.*unique-local/],
        ['https://metadata.example.com/hook', /metadata/],
      ];
      for (const [url, reason] of refused) {
        const res = await create(a, { url, eventTypes: ['*'] });
        assert.equal(res.status, 400, url);
        assert.deepEqual(
          res.body.error.details.map((d: any) => d.field),
          ['url'],
          url,
        );
        assert.match(res.body.error.details[0].message, reason, url);
      }
    });

    test('with WEBHOOKS_ALLOW_PRIVATE_ADDRESSES on, local and private addresses are accepted', async () => {
      const s = await consoleSignIn(open.url, 'ada@example.com');
      for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost:3000/', 'https://internal.example.com/hook', 'http://[::1]/']) {
        const res = await create(s, { url, eventTypes: ['*'] }, open);
        assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
        await consoleCall(open.url, s, `${BASE}/${res.body.data.endpointId}`, { method: 'DELETE' });
      }
      // the shape rules still hold
      const res = await create(s, { url: 'http://user:pw@127.0.0.1/', eventTypes: ['*'] }, open);
      assert.equal(res.status, 400);
    });

    test('changes: description, types and URL (checked again); an empty or unchanged patch', async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/one', eventTypes: ['*'] })).body.data;
      clock += 1000;
      const patch = (body: unknown, s = a) => consoleCall(server.url, s, `${BASE}/${endpointId}`, { method: 'PATCH', body });
      let res = await patch({ description: 'Ticketing', eventTypes: ['evidence.status_changed'], url: 'https://hooks.example.com/two' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.description, 'Ticketing');
      assert.deepEqual(res.body.data.eventTypes, ['evidence.status_changed']);
      assert.equal(res.body.data.url, 'https://hooks.example.com/two');
      assert.equal(res.body.data.updatedAt, clock);
      res = await patch({ url: 'http://192.168.1.1/' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.details[0].field, 'url');
      res = await patch({});
      assert.equal(res.status, 400);
      res = await patch({ status: 'paused' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.details[0].field, 'status');
      assert.equal(
        (await consoleCall(server.url, a, `${BASE}/${endpointId}`)).body.data.url,
        'https://hooks.example.com/two',
        'a refused change changes nothing',
      );
    });

    test('disabling fails pending deliveries; re-enabling clears the reason and the run of failures', async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/d', eventTypes: ['*'] })).body.data;
      const pending = await insertDelivery(endpointId, 'pending');
      const done = await insertDelivery(endpointId, 'succeeded');
      const patch = (body: unknown) => consoleCall(server.url, a, `${BASE}/${endpointId}`, { method: 'PATCH', body });
      let res = await patch({ status: 'disabled' });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.status, 'disabled');
      assert.equal(res.body.data.disabledReason, 'Disabled by an administrator.');
      assert.deepEqual(await deliveryStatus(pending), { status: 'failed', last_error: 'The endpoint was disabled.' });
      assert.equal((await deliveryStatus(done)).status, 'succeeded');
      // as the delivery worker leaves an endpoint it gave up on
      await server.database.db.kysely
        .updateTable('webhook_endpoints')
        .set({ disabled_reason: 'Deliveries failed for 3 days.', failing_since: clock - 3 * 86_400_000 })
        .where('id', '=', endpointId)
        .execute();
      res = await patch({ status: 'enabled' });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.status, 'enabled');
      assert.equal(res.body.data.disabledReason, null);
      const row = await server.database.db.kysely
        .selectFrom('webhook_endpoints')
        .select(['failing_since', 'disabled_reason'])
        .where('id', '=', endpointId)
        .executeTakeFirstOrThrow();
      assert.deepEqual({ ...row }, { failing_since: null, disabled_reason: null });
    });

    test('deleting: 204, then 404; its pending deliveries become failed, its history stays', async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/del', eventTypes: ['*'] })).body.data;
      const pending = await insertDelivery(endpointId, 'pending');
      const done = await insertDelivery(endpointId, 'succeeded');
      const res = await consoleCall(server.url, a, `${BASE}/${endpointId}`, { method: 'DELETE' });
      assert.equal(res.status, 204);
      assert.equal(res.body, undefined);
      assert.equal((await consoleCall(server.url, a, `${BASE}/${endpointId}`)).status, 404);
      assert.equal((await consoleCall(server.url, a, `${BASE}/${endpointId}`, { method: 'DELETE' })).status, 404);
      assert.deepEqual(await deliveryStatus(pending), { status: 'failed', last_error: 'The endpoint was deleted.' });
      assert.equal((await deliveryStatus(done)).status, 'succeeded');
      assert.deepEqual(await liveSigningSecrets(server.system, endpointId, clock), [], 'its secrets are gone');
    });

    test('rotating: a new secret shown once; both sign during the overlap, then only the new one', async () => {
      const created = (await create(a, { url: 'https://hooks.example.com/rot', eventTypes: ['*'] })).body.data;
      clock += 5000;
      const res = await consoleCall(server.url, a, `${BASE}/${created.endpointId}/rotate-secret`, { method: 'POST' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { secret, previousSecretExpiresAt } = res.body.data;
      assert.match(secret, /^whsec_/);
      assert.notEqual(secret, created.secret);
      assert.equal(previousSecretExpiresAt, clock + OVERLAP_SEC * 1000);
      assert.deepEqual(await liveSigningSecrets(server.system, created.endpointId, clock), [secret, created.secret]);
      assert.deepEqual(await liveSigningSecrets(server.system, created.endpointId, previousSecretExpiresAt - 1), [secret, created.secret]);
      assert.deepEqual(await liveSigningSecrets(server.system, created.endpointId, previousSecretExpiresAt), [secret]);
      const got = await consoleCall(server.url, a, `${BASE}/${created.endpointId}`);
      assert.ok(!JSON.stringify(got.body).includes(secret.slice(6)));
      // a second rotation later drops the expired secret for good
      clock = previousSecretExpiresAt + 1;
      const again = (await consoleCall(server.url, a, `${BASE}/${created.endpointId}/rotate-secret`, { method: 'POST' })).body.data;
      const rows = await server.database.db.kysely
        .selectFrom('webhook_endpoint_secrets')
        .select('id')
        .where('endpoint_id', '=', created.endpointId)
        .execute();
      assert.equal(rows.length, 2);
      assert.deepEqual(await liveSigningSecrets(server.system, created.endpointId, clock), [again.secret, secret]);
    });

    test("another organization's endpoint is 404 for every verb, and not listed", async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/mine', eventTypes: ['*'] })).body.data;
      const path = `${BASE}/${endpointId}`;
      const calls = [
        consoleCall(server.url, b, path),
        consoleCall(server.url, b, path, { method: 'PATCH', body: { status: 'disabled' } }),
        consoleCall(server.url, b, path, { method: 'DELETE' }),
        consoleCall(server.url, b, `${path}/rotate-secret`, { method: 'POST' }),
      ];
      for (const res of await Promise.all(calls)) {
        assert.equal(res.status, 404);
        assert.equal(res.body.error.code, 'not_found');
      }
      assert.deepEqual((await consoleCall(server.url, b, BASE)).body.data, []);
      const mine = (await consoleCall(server.url, a, path)).body.data;
      assert.equal(mine.status, 'enabled');
      assert.equal((await liveSigningSecrets(server.system, endpointId, clock)).length, 1);
    });

    test('changes need the CSRF header and a session', async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/csrf', eventTypes: ['*'] })).body.data;
      const path = `${BASE}/${endpointId}`;
      const refused = [
        consoleCall(server.url, a, BASE, { method: 'POST', body: { url: 'https://hooks.example.com/x', eventTypes: ['*'] }, csrf: false }),
        consoleCall(server.url, a, path, { method: 'PATCH', body: { status: 'disabled' }, csrf: false }),
        consoleCall(server.url, a, path, { method: 'DELETE', csrf: 'A'.repeat(43) }),
        consoleCall(server.url, a, `${path}/rotate-secret`, { method: 'POST', csrf: false }),
      ];
      for (const res of await Promise.all(refused)) {
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'forbidden');
      }
      const anonymous = await consoleCall(server.url, { cookie: 'cds_console=nope', csrf: a.csrf }, BASE);
      assert.equal(anonymous.status, 401);
      assert.equal((await consoleCall(server.url, a, path)).body.data.status, 'enabled');
      assert.equal((await liveSigningSecrets(server.system, endpointId, clock)).length, 1, 'not rotated');
    });

    test('every change is in the audit log, with who and which endpoint', async () => {
      const { endpointId } = (await create(a, { url: 'https://hooks.example.com/audit', eventTypes: ['*'] })).body.data;
      const path = `${BASE}/${endpointId}`;
      await consoleCall(server.url, a, path, { method: 'PATCH', body: { description: 'x' } });
      await consoleCall(server.url, a, path, { method: 'PATCH', body: { status: 'disabled' } });
      await consoleCall(server.url, a, path, { method: 'PATCH', body: { status: 'enabled' } });
      await consoleCall(server.url, a, `${path}/rotate-secret`, { method: 'POST' });
      await consoleCall(server.url, a, path, { method: 'DELETE' });
      const log = (await consoleCall(server.url, a, '/console/api/audit-log?limit=200')).body.data as any[];
      const mine = log.filter((e) => e.target?.id === endpointId).reverse();
      assert.deepEqual(
        mine.map((e) => e.action),
        [
          'webhook_endpoint.create',
          'webhook_endpoint.update',
          'webhook_endpoint.disable',
          'webhook_endpoint.enable',
          'webhook_endpoint.rotate_secret',
          'webhook_endpoint.delete',
        ],
      );
      for (const e of mine) {
        assert.deepEqual(e.actor, { type: 'admin', label: 'ada@example.com' });
        assert.deepEqual(e.target, { type: 'webhook_endpoint', id: endpointId, label: 'https://hooks.example.com/audit' });
      }
      const other = (await consoleCall(server.url, b, '/console/api/audit-log?limit=200')).body.data as any[];
      assert.ok(!other.some((e) => e.target?.id === endpointId), "not in the other organization's log");
    });

    test(`an organization may have at most ${MAX_ENDPOINTS_PER_ORG} endpoints`, async () => {
      const ctx = ctxA();
      const existing = (await consoleCall(server.url, a, BASE)).body.data.length;
      for (let i = existing; i < MAX_ENDPOINTS_PER_ORG; i++) {
        const res = await create(a, { url: `https://hooks.example.com/n${i}`, eventTypes: ['*'] });
        assert.equal(res.status, 201);
      }
      const res = await create(a, { url: 'https://hooks.example.com/one-too-many', eventTypes: ['*'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.details[0].field, 'endpoints');
      assert.match(res.body.error.message, /at most 20/);
      assert.equal((await consoleCall(server.url, a, BASE)).body.data.length, MAX_ENDPOINTS_PER_ORG);
      assert.ok(ctx.actor.organizationId);
    });

    test(`registrations sent together cannot pass the cap of ${MAX_ENDPOINTS_PER_ORG}`, async () => {
      assert.deepEqual((await consoleCall(server.url, b, BASE)).body.data, []);
      const answers = await Promise.all(
        Array.from({ length: MAX_ENDPOINTS_PER_ORG + 5 }, (_, i) =>
          create(b, { url: `https://hooks.example.com/race${i}`, eventTypes: ['*'] }),
        ),
      );
      assert.equal(answers.filter((r) => r.status === 201).length, MAX_ENDPOINTS_PER_ORG);
      assert.equal(answers.filter((r) => r.status === 400).length, 5);
      assert.equal((await consoleCall(server.url, b, BASE)).body.data.length, MAX_ENDPOINTS_PER_ORG);
    });
  });
}
