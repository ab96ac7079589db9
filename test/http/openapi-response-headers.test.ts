// Every response header the document declares is sent: the suite walks the operations of the
// served /openapi.json and, for each 200, 201, 401 and 429 it documents, makes a real request that
// gets that answer and checks each declared header on it. A required header must be on every such
// answer; `Idempotent-Replayed` (not required) must be on the replay of a write and absent on the
// first answer. Nothing lists the operations by hand beyond the request bodies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import {
  addCredential,
  api,
  createAdminFor,
  createOrgWithCredential,
  getToken,
  startServer,
  type Client,
  type TestServer,
} from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { createEndpoint } from '../../src/domain/webhooks/create-endpoint.ts';
import { enqueueEvents, insertEndpointFixture, testEvent } from '../harness/webhooks.ts';
import { acceptedJobId } from '../harness/vulnerability-imports.ts';

/** Moves allowed only from some statuses: the status the suite puts the record in first. */
const MOVE_FROM: Record<string, { table: 'evidence' | 'policies'; status: string }> = {
  'POST /v1/evidence/{evidenceId}/approve': { table: 'evidence', status: 'pending_approval' },
  'POST /v1/evidences/{evidenceId}/approve': { table: 'evidence', status: 'pending_approval' },
  'POST /v1/evidence/{evidenceId}/request_revision': { table: 'evidence', status: 'uploaded' },
  'POST /v1/evidences/{evidenceId}/request_revision': { table: 'evidence', status: 'uploaded' },
  'POST /v1/policies/{policyId}/submit': { table: 'policies', status: 'draft' },
  'POST /v1/policies/{policyId}/approve': { table: 'policies', status: 'pending_approval' },
  'POST /v1/policies/{policyId}/publish': { table: 'policies', status: 'draft_approved' },
  'POST /v1/policies/{policyId}/request_review': { table: 'policies', status: 'published' },
};

const API_LIMIT = 40;
const TOKEN_LIMIT = 5;
const SIGN_IN_LIMIT = 3;
const MANUAL_SENDS_LIMIT = 3;
const env = {
  WEBHOOK_MANUAL_SENDS_PER_MIN: String(MANUAL_SENDS_LIMIT),
  RATE_LIMIT_MAX: String(API_LIMIT),
  TOKEN_RATE_LIMIT_MAX: String(TOKEN_LIMIT),
  UNAUTHENTICATED_RATE_LIMIT_MAX: '1000',
  CONSOLE_SIGNIN_RATE_LIMIT_MAX: String(SIGN_IN_LIMIT),
};
const STATUSES = ['200', '201', '401', '429'] as const;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const PASSWORD = 'correct horse battery staple';
const operator = { type: 'cli' as const, id: null, label: 'test', ip: null, userAgent: null };

type Answer = Awaited<ReturnType<typeof api>>;

interface Operation {
  label: string;
  method: string;
  path: string;
  op: any;
}

interface Session {
  cookie: string;
  csrf: string;
}

const json = (value: unknown) => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

function attachmentForm(): FormData {
  const form = new FormData();
  form.append('evidenceDate', String(Date.now() - 60_000));
  form.append('files', new Blob([new TextEncoder().encode('response headers suite\n')]), 'note.txt');
  return form;
}

for (const dialect of dialects) {
  describe(`declared response headers are sent (${dialect})`, () => {
    let server: TestServer;
    let doc: any;
    let operations: Operation[];
    let org: Client;
    let writer: string;
    let ids: Record<string, string>;
    let session: Session;
    const checked: string[] = [];

    before(async () => {
      server = await startServer({ dialect, env });
      doc = await (await fetch(`${server.url}/openapi.json`)).json();
      operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => ({ label: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path, op: item[m] })),
      );
      org = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      const f = fixtures(server.database.db, org.organizationId);
      await f.framework('Headers framework');
      await f.control('CTL-7001');
      await f.policy('draft');
      await f.evidence('uploaded');
      await f.test('fix_required');
      await findingFixtures(server.database.db, org.organizationId).vulnerability({
        source: 'api',
        key: 'VUL-7001',
        status: 'open',
        severity: 'high',
        firstSeen: Date.UTC(2026, 0, 1),
      });
      // IDs are looked up with a credential of their own, so the writer's budget is the suite's
      const reader = await getToken(server.url, await addCredential(server.system, org.organizationId, 'read_only'));
      ids = {};
      for (const [name, list] of [
        ['controlId', '/v1/controls'],
        ['policyId', '/v1/policies'],
        ['evidenceId', '/v1/evidence'],
        ['testId', '/v1/tests'],
        ['vulnerabilityId', '/v1/vulnerabilities'],
      ]) {
        const res = await api(server.url, list, reader);
        assert.equal(res.status, 200, `${list}: ${JSON.stringify(res.body)}`);
        ids[name] = res.body.data[0][name];
      }
      // jobs are not listed: one is made (a small import the service is asked to run as a job)
      ids.jobId = await acceptedJobId(
        server,
        await getToken(server.url, await addCredential(server.system, org.organizationId, 'read_write')),
      );
      // a webhook endpoint with one delivery, for the console's delivery routes (the worker's
      // attempts are refused: loopback is not allowed by default, so nothing is sent)
      const endpoint = await insertEndpointFixture(server.system, { organizationId: org.organizationId, url: 'http://127.0.0.1:9/' });
      await enqueueEvents(server.database.db, org.organizationId, [testEvent()]);
      ids.endpointId = endpoint.endpointId;
      ids.deliveryId = (
        await server.database.db.kysely
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.endpointId)
          .executeTakeFirstOrThrow()
      ).id;
      writer = await getToken(server.url, await addCredential(server.system, org.organizationId, 'read_write'));
      await createAdminFor({
        ctx: server.system,
        input: { organizationId: org.organizationId, email: 'admin@example.com', password: PASSWORD },
        actor: operator,
      });
      const signIn = await signInAs('admin@example.com', PASSWORD);
      assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
      session = { cookie: signIn.headers.get('set-cookie')!.split(';')[0], csrf: signIn.body.data.csrfToken };
    });
    after(() => server?.close());

    function signInAs(email: string, password: string) {
      return api(server.url, '/console/api/session', undefined, { method: 'POST', ...json({ email, password }) });
    }

    /** The declared headers of a response, by name, with whether each is required. */
    function declared(response: any): Array<{ name: string; required: boolean }> {
      return Object.entries<any>(response.headers ?? {}).map(([name, header]) => {
        const resolved = header.$ref ? doc.components.headers[header.$ref.split('/').pop()] : header;
        assert.ok(resolved, `header ${name} resolves`);
        return { name, required: resolved.required === true };
      });
    }

    /** The request of an operation: its path IDs, required parameters, a body, and who asks. */
    function send(
      o: Operation,
      who: { token?: string; session?: Session },
      body?: { body: RequestInit['body']; headers?: Record<string, string> },
      key?: string,
    ) {
      let path = o.path;
      const headers: Record<string, string> = { ...body?.headers };
      for (const p of o.op.parameters ?? []) {
        if (p.in === 'path')
          path = path.replace(`{${p.name}}`, p.name === 'vulnerabilityId' ? ids[p.name] : encodeURIComponent(ids[p.name]));
        if (p.in === 'header' && p.name === 'idempotency-key') headers[p.name] = key ?? `hdr-${randomUUID()}`;
        if (p.in === 'header' && p.name === 'x-csrf-token' && who.session) headers[p.name] = who.session.csrf;
      }
      if (who.session) headers.cookie = who.session.cookie;
      return api(server.url, path, who.token, { method: o.method, headers, body: body?.body });
    }

    /** Requests that get the operation's success: the answers (for a write, the first and its replay). */
    async function successes(o: Operation): Promise<Answer[]> {
      const v1 = o.path.startsWith('/v1/');
      const consoleApi = o.path.startsWith('/console/api/');
      const bodies: Record<string, () => { body: RequestInit['body']; headers?: Record<string, string> }> = {
        'POST /v1/vulnerabilities': () =>
          json({
            vulnerabilityId: `VUL-${String(1000 + Math.floor(Math.random() * 9000))}`,
            title: 'Headers',
            severity: 'low',
            status: 'open',
          }),
        'PATCH /v1/vulnerabilities/{vulnerabilityId}': () => json({ reportLink: '' }),
        'PUT /v1/program': () => ({ body: 'version: 1\n', headers: { 'content-type': 'application/yaml' } }),
        'POST /v1/tests/{testId}/results': () => json({ status: 'passing' }),
        'PATCH /v1/controls/{controlId}': () => json({ assigneeEmails: [] }),
        'POST /v1/evidence/{evidenceId}/attachments': () => ({ body: attachmentForm() }),
        'POST /v1/evidences/{evidenceId}/attachments': () => ({ body: attachmentForm() }),
        'POST /v1/evidence/{evidenceId}/approve': () => json({}),
        'POST /v1/evidences/{evidenceId}/approve': () => json({}),
        'POST /v1/evidence/{evidenceId}/request_revision': () => json({ rejectionReason: 'Headers suite' }),
        'POST /v1/evidences/{evidenceId}/request_revision': () => json({ rejectionReason: 'Headers suite' }),
        'PATCH /v1/evidence/{evidenceId}': () => json({ isRelevant: true }),
        'PATCH /v1/evidences/{evidenceId}': () => json({ isRelevant: true }),
        'POST /v1/policies/{policyId}/submit': () => json({}),
        'POST /v1/policies/{policyId}/approve': () => json({}),
        'POST /v1/policies/{policyId}/publish': () => json({}),
        'POST /v1/policies/{policyId}/request_review': () => json({}),
        'PATCH /v1/policies/{policyId}': () => json({ isRelevant: true }),
        'POST /v1/vulnerabilities/imports': () => ({ body: scannerForm() }),
        'POST /v1/tests/results/imports': () => ({ body: checkerForm() }),
        'POST /console/api/credentials': () => json({ name: 'Headers suite', accessLevel: 'read_only' }),
        'POST /console/api/program': () => json({ text: 'version: 1\n' }),
        // a literal public address: no DNS needed
        'POST /console/api/webhook-endpoints': () => json({ url: 'https://93.184.216.34/headers', eventTypes: ['*'] }),
        'PATCH /console/api/webhook-endpoints/{endpointId}': () => json({ description: 'Headers suite' }),
      };
      if (o.label === 'POST /oauth/token') {
        const client = await addCredential(server.system, org.organizationId, 'read_only');
        return [
          await api(server.url, '/oauth/token', undefined, {
            method: 'POST',
            ...json({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
          }),
        ];
      }
      if (o.label === 'POST /console/api/session') return [await signInAs('admin@example.com', PASSWORD)];
      if (o.label === 'POST /console/api/credentials/{credentialId}/revoke') {
        ids.credentialId = (await addCredential(server.system, org.organizationId, 'read_only')).credentialId;
      }
      if (o.path.includes('{endpointId}')) {
        const actor = {
          type: 'cli' as const,
          id: null,
          label: 'headers suite',
          ip: null,
          userAgent: null,
          organizationId: org.organizationId,
        };
        const input = { url: 'https://93.184.216.34/headers', eventTypes: ['*'] };
        ids.endpointId = (await createEndpoint({ ctx: { ...server.system, actor }, input })).endpointId;
      }
      const who = v1 ? { token: writer } : consoleApi ? { session } : {};
      // a move allowed only from some statuses: its record is put where the move is allowed first
      const from = MOVE_FROM[o.label];
      if (from) {
        await (server.database.db.kysely as any)
          .updateTable(from.table)
          .set({ status: from.status })
          .where('organization_id', '=', org.organizationId)
          .execute();
        await bumpDataVersions(server.database.db.kysely, org.organizationId, DATA_KINDS);
      }
      if (v1 && o.method !== 'GET') {
        // each write with a credential of its own: the writes together pass the suite's low rate limit
        const token = await getToken(server.url, await addCredential(server.system, org.organizationId, 'read_write'));
        Object.assign(who, { token });
        const make = bodies[o.label];
        assert.ok(make, `${o.label}: add a body to the suite`);
        // the same body (a FormData yields the same parts, whatever the boundary) and key: a replay
        const body = make();
        const key = `hdr-${randomUUID()}`;
        return [await send(o, who, body, key), await send(o, who, body, key)];
      }
      return [await send(o, who, o.op.requestBody ? bodies[o.label]?.() : undefined)];
    }

    /** Requests that get the operation's 401. */
    function unauthorized(o: Operation): Promise<Answer> {
      if (o.label === 'POST /oauth/token') {
        return api(server.url, '/oauth/token', undefined, {
          method: 'POST',
          ...json({ grant_type: 'client_credentials', client_id: 'cds_id_AAAAAAAAAAAAAAAA', client_secret: 'x' }),
        });
      }
      if (o.label === 'POST /console/api/session') return signInAs('nobody@example.com', 'wrong password');
      const body = o.op.requestBody?.content?.['application/json'] ? json({}) : undefined;
      return send(o, {}, body);
    }

    /** Requests that get the operation's 429. */
    const exhausted: Record<string, boolean> = {};
    async function tooMany(o: Operation): Promise<Answer> {
      if (o.label === 'POST /oauth/token') {
        const client = await addCredential(server.system, org.organizationId, 'read_only');
        const grant = json({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
        for (let i = 0; i < TOKEN_LIMIT; i++)
          assert.equal((await api(server.url, '/oauth/token', undefined, { method: 'POST', ...grant })).status, 200);
        return api(server.url, '/oauth/token', undefined, { method: 'POST', ...grant });
      }
      if (o.label === 'POST /console/api/session') {
        await createAdminFor({
          ctx: server.system,
          input: { organizationId: org.organizationId, email: 'slow@example.com', password: PASSWORD },
          actor: operator,
        });
        for (let i = 0; i < SIGN_IN_LIMIT; i++) assert.equal((await signInAs('slow@example.com', 'wrong password')).status, 401);
        return signInAs('slow@example.com', 'wrong password');
      }
      if (o.path.startsWith('/console/api/webhook-')) {
        // test events and redeliveries share the organization's budget (WEBHOOK_MANUAL_SENDS_PER_MIN)
        let answer = await send(o, { session });
        for (let i = 0; i < MANUAL_SENDS_LIMIT && answer.status !== 429; i++) answer = await send(o, { session });
        return answer;
      }
      assert.ok(o.path.startsWith('/v1/'), `${o.label}: no way to get its 429 in the suite`);
      if (!exhausted.token) {
        exhausted.token = true;
        limited = await getToken(server.url, await addCredential(server.system, org.organizationId, 'read_write'));
      }
      // The budget is a fixed window: a slow walk can cross into the next one, so it is spent
      // again, up to its first 429, just before each operation is sent.
      let spent = 0;
      while ((await api(server.url, '/v1/frameworks', limited)).status !== 429)
        assert.ok(++spent <= API_LIMIT, `${o.label}: ${spent} requests and no 429`);
      const body = o.op.requestBody?.content?.['application/json'] ? json({}) : undefined;
      return send(o, { token: limited }, body);
    }
    let limited: string;

    function check(label: string, status: string, response: any, answers: Answer[]) {
      for (const answer of answers)
        assert.equal(String(answer.status), status, `${label}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
      for (const { name, required } of declared(response)) {
        if (required) {
          for (const answer of answers)
            assert.ok(answer.headers.get(name) !== null, `${label} ${status}: ${name} is declared and required but was not sent`);
        } else if (name === 'Idempotent-Replayed') {
          assert.equal(answers.length, 2, `${label}: a write is checked with its replay`);
          assert.equal(answers[0].headers.get(name), null, `${label} ${status}: ${name} is absent on the first answer`);
          assert.equal(answers[1].headers.get(name), 'true', `${label} ${status}: ${name} is sent on the replay`);
        } else {
          assert.fail(`${label} ${status}: the suite does not know when the optional header ${name} is sent`);
        }
        checked.push(`${label} ${status} ${name}`);
      }
    }

    test('every declared header of every 200, 201, 401 and 429 is sent', async () => {
      // the 429s spend budgets, so they come last
      for (const status of STATUSES) {
        for (const o of operations) {
          const response = o.op.responses[status];
          if (!response) continue;
          if (status === '200' || status === '201') {
            check(o.label, status, response, await successes(o));
          } else if (status === '401') {
            check(o.label, status, response, [await unauthorized(o)]);
          } else {
            check(o.label, status, response, [await tooMany(o)]);
          }
        }
      }
      // 29 operations: a few hundred header checks; far fewer means the walk skipped operations
      assert.ok(checked.length >= 200, `only ${checked.length} header checks were made`);
      // Every kind of declared header was met at least once.
      for (const name of Object.keys(doc.components.headers)) {
        assert.ok(
          checked.some((c) => c.endsWith(` ${name}`)),
          `${name} was checked on some answer`,
        );
      }
    });
  });
}

/** A scanner import as a multipart form: the format, then a SARIF log of one result. */
function checkerForm(): FormData {
  const form = new FormData();
  form.append('format', 'ocsf');
  form.append('file', new Blob([readFileSync(new URL('../unit/fixtures/checks/prowler-ocsf.json', import.meta.url))]), 'prowler.ocsf.json');
  return form;
}

function scannerForm(): FormData {
  const form = new FormData();
  form.append('format', 'sarif');
  const log = { version: '2.1.0', runs: [{ tool: { driver: { name: 'Semgrep' } }, results: [{ ruleId: 'r', message: { text: 'm' } }] }] };
  form.append('file', new Blob([JSON.stringify(log)]), 'scan.sarif');
  return form;
}
