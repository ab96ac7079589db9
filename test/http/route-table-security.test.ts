// The route-table security suite: walks the served /openapi.json and, for every /v1 operation
// (every method), checks the authorization ladder from the document itself — no token → 401,
// a token without the operation's scope → 403 forbidden, a plan without the resource → 403
// plan_restricted, another organization's ID → 404, a malformed parameter → 400 — and, for every
// console admin operation, no session → 401. Nothing here lists the routes by hand, so a route
// added later is checked without anyone remembering to; the only hand-written table (request
// bodies) fails the suite when an operation with a body is missing from it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
import { consoleCall, consoleSignIn, CONSOLE_PASSWORD, type Signed } from '../harness/console-session.ts';
import { fixtures } from '../harness/fixtures.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { ACCESS_LEVELS, RESOURCES, scopesFor, type Resource } from '../../src/domain/auth/scopes.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import { PROGRAM_KINDS } from '../../src/domain/program/registry.ts';
import { EVENT_TYPES } from '../../src/domain/events/schema.ts';
import { acceptedJobId } from '../harness/vulnerability-imports.ts';

// Hundreds of requests per credential; the rate limits are covered elsewhere.
const env = { RATE_LIMIT_MAX: '1000000', UNAUTHENTICATED_RATE_LIMIT_MAX: '1000000', TOKEN_RATE_LIMIT_MAX: '1000000' };
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: Record<string, any>;
}

interface Operation {
  method: string;
  path: string;
  label: string;
  parameters: Parameter[];
  /** the bearer scopes the document names (empty for console operations) */
  scopes: string[];
  console: boolean;
  hasBody: boolean;
  write: boolean;
}

// ---- The document, read once (it is the same on every engine) ----

const documentServer = await startServer();
const doc: any = await (await fetch(`${documentServer.url}/openapi.json`)).json();
await documentServer.close();

const operations: Operation[] = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => {
    const op = item[method];
    const security: Array<Record<string, string[]>> = op.security ?? [];
    return {
      method: method.toUpperCase(),
      path,
      label: `${method.toUpperCase()} ${path}`,
      parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])],
      scopes: security.flatMap((s) => s.bearerAuth ?? []),
      console: security.some((s) => 'consoleSession' in s),
      hasBody: Boolean(op.requestBody),
      write: method !== 'get',
    };
  }),
);
// GET /v1/program/schema is public (a format's JSON Schema, nothing of any organization): no ladder to climb.
const v1Operations = operations.filter((o) => o.path.startsWith('/v1/') && o.path !== '/v1/program/schema');
const consoleOperations = operations.filter((o) => o.console);

/**
 * Paths that serve no resource of their own: a job (an extension, issue 36) is read with the scope
 * and plan of what it writes (a scanner import's, a checker's report's: JOB_RESOURCES); its scope is
 * checked as a scanner import's.
 */
const RESOURCE_OF_SEGMENT: Record<string, Resource> = { jobs: 'vulnerability' };
/** What jobs write: a plan without all of them is refused a job before it is looked up. */
const JOB_RESOURCES: readonly Resource[] = ['vulnerability', 'test'];

/** The resource a /v1 path serves: its first segment after /v1, singular (`evidences` → evidence). */
function resourceOfPath(path: string): Resource | undefined {
  const segment = path.split('/')[2];
  return RESOURCE_OF_SEGMENT[segment] ?? RESOURCES.find((r) => segment === r || segment.startsWith(r.slice(0, -1)));
}

/**
 * Operations whose scope depends on a query parameter: the events feed (an extension) reads each
 * event type with the read scope of its resource, so its document lists those scopes as
 * alternatives, and the plan is checked per type asked for.
 */
const SCOPED_BY_QUERY: Record<string, { param: string; valueFor: Partial<Record<Resource, string>> }> = {
  'GET /v1/events': {
    param: 'types',
    valueFor: {
      vulnerability: 'vulnerability.created',
      evidence: 'evidence.status_changed',
      control: 'control.status_changed',
      framework: 'framework.progress_changed',
    },
  },
};

/**
 * Operations on the whole program (an extension, issue 25): the document lists the scope of every
 * resource, and the ones needed are those of the kinds the request touches. The suite's body
 * holds frameworks, so `framework` is the resource checked; the export leaves out the kinds the
 * plan excludes instead of refusing (docs/program-documents.md, "Over HTTP").
 */
const WHOLE_PROGRAM: Record<string, { resource: Resource; action: 'read' | 'write'; planExcludes: boolean }> = {
  'PUT /v1/program': { resource: 'framework', action: 'write', planExcludes: false },
  'GET /v1/program': { resource: 'framework', action: 'read', planExcludes: true },
};

/** The resource and action of an operation's bearer scope (`evidence:write`). */
function scopeOf(op: Operation): { resource: string; action: 'read' | 'write' } {
  const whole = WHOLE_PROGRAM[op.label];
  if (whole) return whole;
  assert.equal(op.scopes.length, 1, `${op.label}: expected exactly one bearer scope in "security", got ${JSON.stringify(op.scopes)}`);
  const [resource, action] = op.scopes[0].split(':');
  assert.ok(action === 'read' || action === 'write', `${op.label}: unexpected scope ${op.scopes[0]}`);
  return { resource, action };
}

// ---- Request bodies: the one hand-written table, keyed by "METHOD path" ----

let findingSeq = 0;
const newFindingKey = () => `VUL-${String(1000 + (++findingSeq % 9000))}`;

function attachmentForm(): FormData {
  const form = new FormData();
  form.append('evidenceDate', String(Date.now() - 60_000));
  form.append('files', new Blob([new TextEncoder().encode('route-table security suite\n')]), 'note.txt');
  return form;
}

const json = (value: unknown) => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

/** A valid body for each operation that takes one. */
const BODIES: Record<string, () => { body: RequestInit['body']; headers?: Record<string, string> }> = {
  'POST /v1/vulnerabilities': () =>
    json({ vulnerabilityId: newFindingKey(), title: 'Route table finding', severity: 'low', status: 'open' }),
  'PATCH /v1/vulnerabilities/{vulnerabilityId}': () => json({ reportLink: '' }),
  'PUT /v1/program': () => ({ body: 'version: 1\nframeworks: []\n', headers: { 'content-type': 'application/yaml' } }),
  'POST /v1/tests/{testId}/results': () => json({ status: 'passing' }),
  'PATCH /v1/controls/{controlId}': () => json({ assigneeEmails: [] }),
  'POST /v1/evidence/{evidenceId}/attachments': () => ({ body: attachmentForm() }),
  'POST /v1/evidences/{evidenceId}/attachments': () => ({ body: attachmentForm() }),
  // evidence review and the policy lifecycle (extensions): a valid body; the move may then be refused by status
  'POST /v1/evidence/{evidenceId}/approve': () => json({}),
  'POST /v1/evidences/{evidenceId}/approve': () => json({}),
  'POST /v1/evidence/{evidenceId}/request_revision': () => json({ rejectionReason: 'Route table' }),
  'POST /v1/evidences/{evidenceId}/request_revision': () => json({ rejectionReason: 'Route table' }),
  'PATCH /v1/evidence/{evidenceId}': () => json({ isRelevant: true }),
  'PATCH /v1/evidences/{evidenceId}': () => json({ isRelevant: true }),
  'POST /v1/policies/{policyId}/submit': () => json({}),
  'POST /v1/policies/{policyId}/approve': () => json({}),
  'POST /v1/policies/{policyId}/publish': () => json({}),
  'POST /v1/policies/{policyId}/request_review': () => json({}),
  'PATCH /v1/policies/{policyId}': () => json({ isRelevant: true }),
  'POST /v1/vulnerabilities/imports': () => ({ body: scannerForm() }),
  'POST /v1/tests/results/imports': () => ({ body: checkerForm() }),
  // console: only reached without a session (401 comes first), so any well-formed body will do
  'POST /console/api/credentials': () => json({ name: 'Route table', accessLevel: 'read_only' }),
  'POST /console/api/session': () => json({ email: 'nobody@example.com', password: 'x' }),
  'POST /console/api/program': () => json({ text: 'version: 1\n' }),
  'POST /console/api/webhook-endpoints': () => json({ url: 'https://93.184.216.34/route-table', eventTypes: ['*'] }),
  'PATCH /console/api/webhook-endpoints/{endpointId}': () => json({ description: 'Route table' }),
};

/**
 * Moves allowed only from some statuses (evidence review, the policy lifecycle): before the
 * caller's own request, its record is put back in a status the move is allowed from, so the 2xx
 * checks tenancy, not the state machine (pinned by test/http/evidence-review*.test.ts and
 * test/http/policy-lifecycle*.test.ts).
 */
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

// ---- The console's doors bounded by the organization's plan ----

/** A console request: its path's parameters filled by `ids`, and the JSON body if any. */
interface ConsoleRequest {
  why: string;
  body?: unknown;
}

/** Program documents that name `resource`: each kind holding it, and each link field of another kind to it. */
function documentsNaming(resource: Resource): ConsoleRequest[] {
  const out: ConsoleRequest[] = [];
  for (const kind of PROGRAM_KINDS) {
    const named = kind.resources.includes(resource) ? { why: `the kind ${kind.name}`, doc: { version: 1, [kind.name]: [] } } : undefined;
    if (named) out.push({ why: named.why, body: { text: JSON.stringify(named.doc), fileName: 'program.json' } });
    for (const [field, linked] of Object.entries(kind.links ?? {})) {
      if (linked !== resource || kind.resources.includes(resource)) continue;
      // an empty list writes the links (it clears them), so it is refused like any value
      const doc = { version: 1, [kind.name]: [{ key: 'route-table', [field]: [] }] };
      out.push({ why: `the link ${kind.name}[].${field}`, body: { text: JSON.stringify(doc), fileName: 'program.json' } });
    }
  }
  return out;
}

/** An event type of `resource`, to subscribe an endpoint to. */
const eventTypeOf = (resource: Resource) => EVENT_TYPES.find((t) => t.startsWith(`${resource}.`))!;

/**
 * Console operations the organization's plan bounds (PRODUCT.md, "Plans bound every door"): per
 * resource, the requests naming it that an administrator of an organization whose plan leaves the
 * resource out sends, each answered 403 plan_restricted. Every other console operation is in
 * CONSOLE_PLAN_UNCHECKED with the reason, so one added later fails the suite until it is placed.
 */
const CONSOLE_PLAN_BOUND: Record<string, (resource: Resource) => ConsoleRequest[]> = {
  'POST /console/api/program': documentsNaming,
  'GET /console/api/overview': (resource) => (resource === 'framework' ? [{ why: 'the frameworks and their progress' }] : []),
  'POST /console/api/webhook-endpoints': (resource) => [
    { why: `eventTypes ${eventTypeOf(resource)}`, body: { url: 'https://93.184.216.34/route-table', eventTypes: [eventTypeOf(resource)] } },
  ],
  'PATCH /console/api/webhook-endpoints/{endpointId}': (resource) => [
    { why: `eventTypes ${eventTypeOf(resource)}`, body: { eventTypes: [eventTypeOf(resource)] } },
  ],
};

/** Console operations not checked for the plan here, and why. */
const CONSOLE_PLAN_UNCHECKED: Record<string, string> = {
  'GET /console/api/session': 'the session itself',
  'DELETE /console/api/session': 'signing out',
  'GET /console/api/credentials': 'credentials are not a plan resource',
  'POST /console/api/credentials': 'credentials are not a plan resource (their scopes are bounded at use)',
  'POST /console/api/credentials/{credentialId}/revoke': 'credentials are not a plan resource',
  'GET /console/api/audit-log': "the organization's own administrative history",
  'GET /console/api/usage': 'request counts, no records',
  'GET /console/api/webhook-endpoints': 'endpoints name no records',
  'GET /console/api/webhook-endpoints/{endpointId}': 'endpoints name no records',
  'DELETE /console/api/webhook-endpoints/{endpointId}': 'endpoints name no records',
  'POST /console/api/webhook-endpoints/{endpointId}/rotate-secret': 'endpoints name no records',
  'POST /console/api/webhook-endpoints/{endpointId}/test': 'a webhook.test event names no records',
  'GET /console/api/webhook-endpoints/{endpointId}/deliveries': 'event types and outcomes only, never the event data',
  'GET /console/api/webhook-deliveries/{deliveryId}/attempts': "the receiver's answers only, never the event data",
  'POST /console/api/webhook-deliveries/{deliveryId}/redeliver':
    'bounded by the plan as the event is read (needs an event recorded before the plan changed): http/webhook-plan-bounds.test.ts',
};

// ---- Parameter values ----

/** A value the parameter's schema accepts (for required parameters the check is not about). */
function validValue(op: Operation, p: Parameter, ids: Record<string, string>): string {
  if (p.in === 'path') {
    const id = ids[p.name];
    assert.ok(id, `${op.label}: no ID known for path parameter ${p.name}`);
    return id;
  }
  if (p.name.toLowerCase() === 'idempotency-key') return `rts-${randomUUID()}`;
  if (p.name.toLowerCase() === 'x-csrf-token') return 'not-a-session-token';
  const s = p.schema;
  if (Array.isArray(s.enum)) return String(s.enum[0]);
  if (Array.isArray(s['x-list'])) return s['x-list'][0];
  if (s.default !== undefined) return String(s.default);
  assert.fail(`${op.label}: cannot build a valid value for required ${p.in} parameter ${p.name} (${JSON.stringify(s)})`);
}

/**
 * A value that breaks the parameter's schema: a wrong enum value, a string its pattern refuses,
 * one character over maxLength, a non-number for an integer, and for an unconstrained ID a
 * 10,000-character one (nothing a caller may send should be unbounded).
 */
function malformedValue(p: Parameter): { value: string; why: string } {
  const s = p.schema;
  if (Array.isArray(s.enum)) return { value: 'not_a_listed_value', why: `not one of ${s.enum.join(', ')}` };
  if (s.type === 'integer' || s.type === 'number') return { value: 'not-a-number', why: `not an ${s.type}` };
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern, 'u');
    const candidates = ['not_a_listed_value', 'bad value!', ',', 'maybe', 'x'.repeat(10_000)];
    const value = candidates.find((c) => !re.test(c));
    assert.ok(value !== undefined, `no candidate breaks the pattern of ${p.name}: ${s.pattern}`);
    return { value, why: `does not match ${s.pattern}` };
  }
  if (typeof s.maxLength === 'number') return { value: 'x'.repeat(s.maxLength + 1), why: `longer than maxLength ${s.maxLength}` };
  if (typeof s.minLength === 'number' && s.minLength > 0) return { value: '', why: `shorter than minLength ${s.minLength}` };
  return { value: 'x'.repeat(10_000), why: 'a 10,000-character value' };
}

interface RequestPlan {
  token?: string;
  ids: Record<string, string>;
  /** replaces one parameter's value */
  override?: { name: string; in: string; value: string };
  cookie?: string;
}

/** The operation's request, built from the document: path, required parameters, body. */
function send(server: TestServer, op: Operation, plan: RequestPlan) {
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    const overridden = plan.override && plan.override.name === p.name && plan.override.in === p.in;
    if (!overridden && !p.required) continue;
    const value = overridden ? plan.override!.value : validValue(op, p, plan.ids);
    if (p.in === 'path')
      path = path.replace(`{${p.name}}`, p.name === 'vulnerabilityId' && !overridden ? value : encodeURIComponent(value));
    else if (p.in === 'query') query.set(p.name, value);
    else if (p.in === 'header') headers[p.name] = value;
  }
  assert.ok(!/[{}]/.test(path), `${op.label}: unfilled path parameter in ${path}`);
  let body: RequestInit['body'] | undefined;
  if (op.hasBody) {
    const make = BODIES[op.label];
    assert.ok(make, `${op.label} takes a request body but the suite's BODIES table has no entry for it: add one`);
    const built = make();
    body = built.body;
    Object.assign(headers, built.headers);
  }
  if (plan.cookie) headers.cookie = plan.cookie;
  const qs = query.size > 0 ? `?${query}` : '';
  return api(server.url, `${path}${qs}`, plan.token, { method: op.method, headers, body });
}

const show = (res: { status: number; body: unknown }) => `${res.status} ${JSON.stringify(res.body)?.slice(0, 400)}`;

function assertErrorCode(res: { status: number; body: any }, status: number, code: string, label: string) {
  assert.equal(res.status, status, `${label}: expected ${status} ${code}, got ${show(res)}`);
  assert.equal(res.body?.error?.code, code, `${label}: expected error code ${code}, got ${show(res)}`);
}

// ---- Counts of checks attempted (pass or fail), reported at the end and checked for coverage ----

const checked = {
  unauthorized: 0,
  forbidden: 0,
  forbiddenSkipped: 0,
  planRestricted: 0,
  otherOrganization: 0,
  malformed: 0,
  consoleUnauthorized: 0,
  consolePlanRestricted: 0,
};

// ---- The suite ----

test('the document lists /v1 operations with a bearer scope and console operations with a session', () => {
  assert.ok(v1Operations.length >= 10, `only ${v1Operations.length} /v1 operations found`);
  assert.ok(
    v1Operations.some((o) => o.write),
    'no /v1 write operation found',
  );
  for (const op of v1Operations) {
    const byQuery = SCOPED_BY_QUERY[op.label];
    if (byQuery) {
      // every scope listed is the read scope of a resource the parameter can name, and each such resource is listed
      assert.deepEqual(
        [...op.scopes].sort(),
        Object.keys(byQuery.valueFor)
          .map((r) => `${r}:read`)
          .sort(),
        `${op.label}: its scopes`,
      );
      continue;
    }
    const whole = WHOLE_PROGRAM[op.label];
    if (whole) {
      assert.deepEqual(
        [...op.scopes].sort(),
        RESOURCES.map((r) => `${r}:${whole.action}`).sort(),
        `${op.label}: the scope of every resource`,
      );
      continue;
    }
    const { resource } = scopeOf(op);
    const fromPath = resourceOfPath(op.path);
    assert.ok(fromPath, `${op.label}: the path's first segment names no known resource (${RESOURCES.join(', ')})`);
    assert.equal(resource, fromPath, `${op.label}: the scope's resource ${resource} differs from the path's ${fromPath}`);
  }
  assert.ok(consoleOperations.length >= 5, `only ${consoleOperations.length} console operations found`);
});

for (const dialect of dialects) {
  describe(`route-table security (${dialect})`, () => {
    let server: TestServer;
    let ownIds: Record<string, string>;
    let otherIds: Record<string, string>;
    /** the caller: a Read & Write credential of an organization with every resource */
    let writer: string;
    let ownOrganizationId: string;
    const tokenByLevel: Partial<Record<string, string>> = {};
    /** per resource, a Read & Write token of an organization whose plan leaves that resource out */
    const restrictedToken: Partial<Record<Resource, string>> = {};
    let noJobsToken: string;
    /** per resource, a signed-in administrator of that organization and the IDs of its console records */
    const restrictedAdmin: Partial<Record<Resource, { session: Signed; ids: Record<string, string> }>> = {};

    /**
     * One of each resource, written straight into the database. Finding IDs are keys unique only
     * within an organization, so each organization gets its own key (the same key in both would
     * be the caller's own ID, not another organization's).
     */
    async function seed(client: Client, findingKey: string) {
      const f = fixtures(server.database.db, client.organizationId);
      await f.framework('Route table framework');
      await f.control('CTL-9001');
      await f.policy('draft');
      await f.evidence('uploaded');
      await f.test('fix_required');
      await findingFixtures(server.database.db, client.organizationId).vulnerability({
        source: 'api',
        key: findingKey,
        status: 'open',
        severity: 'high',
        firstSeen: Date.UTC(2026, 0, 1),
      });
    }

    /** Every path parameter's value, found by listing the resource the path starts with. */
    async function idsOf(token: string): Promise<Record<string, string>> {
      const ids: Record<string, string> = {};
      for (const op of v1Operations) {
        for (const p of op.parameters.filter((q) => q.in === 'path')) {
          if (ids[p.name]) continue;
          if (p.name === 'jobId') {
            // jobs are not listed: one is made for the organization
            ids.jobId = await acceptedJobId(server, token);
            continue;
          }
          const listPath = `/v1/${op.path.split('/')[2]}`;
          const res = await api(server.url, listPath, token);
          assert.equal(res.status, 200, `listing ${listPath} for ${p.name}: ${show(res)}`);
          const value = res.body.data?.[0]?.[p.name];
          assert.ok(typeof value === 'string' && value, `${listPath} lists no item with a ${p.name} (needed by ${op.label}): ${show(res)}`);
          ids[p.name] = value;
        }
      }
      return ids;
    }

    before(async () => {
      server = await startServer({ dialect, env });
      const own = await createOrgWithCredential(server.system, { name: 'Caller', accessLevel: 'read_write' });
      const other = await createOrgWithCredential(server.system, { name: 'Other', accessLevel: 'read_write' });
      ownOrganizationId = own.organizationId;
      await seed(own, 'VUL-0001');
      await seed(other, 'VUL-0002');
      writer = await getToken(server.url, own);
      for (const level of ACCESS_LEVELS)
        tokenByLevel[level] = await getToken(server.url, await addCredential(server.system, own.organizationId, level));
      ownIds = await idsOf(writer);
      otherIds = await idsOf(await getToken(server.url, other));
      assert.notDeepEqual(ownIds, otherIds);
      for (const resource of RESOURCES) {
        const plan = RESOURCES.filter((r) => r !== resource).join(',');
        const restricted = await createOrgWithCredential(server.system, { name: `No ${resource}`, plan, accessLevel: 'read_write' });
        restrictedToken[resource] = await getToken(server.url, restricted);
        if (resource === JOB_RESOURCES[0]) {
          const plan = RESOURCES.filter((r) => !JOB_RESOURCES.includes(r)).join(',');
          noJobsToken = await getToken(
            server.url,
            await createOrgWithCredential(server.system, { name: 'No jobs', plan, accessLevel: 'read_write' }),
          );
        }
        // …and its administrator, for the console's doors, with an endpoint subscribed within the plan
        const email = `no-${resource}@example.com`;
        await createAdminFor({
          ctx: server.system,
          input: { organizationId: restricted.organizationId, email, password: CONSOLE_PASSWORD },
          actor: { type: 'cli', id: null, label: 'route-table security', ip: null, userAgent: null },
        });
        const session = await consoleSignIn(server.url, email);
        const other = RESOURCES.find((r) => r !== resource)!;
        const endpoint = await consoleCall(server.url, session, '/console/api/webhook-endpoints', {
          method: 'POST',
          body: { url: 'https://93.184.216.34/route-table', eventTypes: [eventTypeOf(other)] },
        });
        assert.equal(endpoint.status, 201, `an endpoint for the organization without ${resource}: ${show(endpoint)}`);
        restrictedAdmin[resource] = { session, ids: { endpointId: endpoint.body.data.endpointId } };
      }
    });
    after(() => server?.close());

    for (const op of v1Operations) {
      describe(op.label, () => {
        test('no token → 401 unauthorized (also a malformed one)', async () => {
          checked.unauthorized++;
          assertErrorCode(await send(server, op, { ids: ownIds }), 401, 'unauthorized', `${op.label} without a token`);
          assertErrorCode(
            await send(server, op, { ids: ownIds, token: `not-a-token-${randomUUID()}` }),
            401,
            'unauthorized',
            `${op.label} with a random token`,
          );
        });

        test("a token without the operation's scope → 403 forbidden", async (t) => {
          if (SCOPED_BY_QUERY[op.label]) {
            checked.forbiddenSkipped++;
            t.skip('only read scopes, which every access level holds');
            return;
          }
          const { resource, action } = scopeOf(op);
          const needed = `${resource}:${action}`;
          // A write scope also grants reads of its resource (spec, scopes rule 5).
          const grants = (scopes: string[]) => scopes.includes(needed) || (action === 'read' && scopes.includes(`${resource}:write`));
          const lacking = ACCESS_LEVELS.filter((level) => !grants(scopesFor(level)));
          if (lacking.length === 0) {
            checked.forbiddenSkipped++;
            t.skip(`every access level (${ACCESS_LEVELS.join(', ')}) holds ${needed}: no credential can lack it`);
            return;
          }
          checked.forbidden++;
          for (const level of lacking) {
            assertErrorCode(
              await send(server, op, { ids: ownIds, token: tokenByLevel[level] }),
              403,
              'forbidden',
              `${op.label} with a ${level} token`,
            );
          }
        });

        test('a plan without the resource → 403 plan_restricted', async () => {
          checked.planRestricted++;
          const byQuery = SCOPED_BY_QUERY[op.label];
          if (byQuery) {
            for (const [resource, value] of Object.entries(byQuery.valueFor) as [Resource, string][]) {
              assertErrorCode(
                await send(server, op, {
                  ids: ownIds,
                  token: restrictedToken[resource],
                  override: { name: byQuery.param, in: 'query', value },
                }),
                403,
                'plan_restricted',
                `${op.label} asking ${byQuery.param}=${value} for a plan without ${resource}`,
              );
            }
            return;
          }
          const whole = WHOLE_PROGRAM[op.label];
          if (whole?.planExcludes) {
            const res = await send(server, op, { ids: ownIds, token: restrictedToken[whole.resource] });
            assert.equal(res.status, 200, `${op.label} for a plan without ${whole.resource}: ${show(res)}`);
            assert.equal(res.body.data.frameworks, undefined, `${op.label} leaves out the kinds the plan excludes`);
            return;
          }
          if (op.path.startsWith('/v1/jobs/')) {
            // a plan with any job's resource may read its jobs (the job's own resource is checked once found)
            assertErrorCode(
              await send(server, op, { ids: ownIds, token: noJobsToken }),
              403,
              'plan_restricted',
              `${op.label} for a plan without ${JOB_RESOURCES.join(' or ')}`,
            );
            return;
          }
          const resource = whole?.resource ?? resourceOfPath(op.path)!;
          // IDs of the caller's organization: the plan is checked before anything is looked up.
          assertErrorCode(
            await send(server, op, { ids: ownIds, token: restrictedToken[resource] }),
            403,
            'plan_restricted',
            `${op.label} for a plan without ${resource}`,
          );
        });

        test("another organization's ID → 404 not_found", async (t) => {
          const pathParams = op.parameters.filter((p) => p.in === 'path');
          if (pathParams.length === 0) {
            t.skip('the operation takes no ID');
            return;
          }
          checked.otherOrganization++;
          const res = await send(server, op, { ids: otherIds, token: writer });
          assertErrorCode(
            res,
            404,
            'not_found',
            `${op.label} with the other organization's ${pathParams.map((p) => `${p.name} ${otherIds[p.name]}`).join(', ')}`,
          );
          // …while the caller's own ID is found (so the 404 is about tenancy, not the request)
          const from = MOVE_FROM[op.label];
          if (from) {
            await (server.database.db.kysely as any)
              .updateTable(from.table)
              .set({ status: from.status })
              .where('organization_id', '=', ownOrganizationId)
              .execute();
            await bumpDataVersions(server.database.db.kysely, ownOrganizationId, DATA_KINDS);
          }
          const own = await send(server, op, { ids: ownIds, token: writer });
          assert.ok(own.status >= 200 && own.status < 300, `${op.label} with the caller's own IDs: expected 2xx, got ${show(own)}`);
        });

        for (const p of op.parameters) {
          test(`a malformed ${p.in} parameter ${p.name} → 400 validation_failed`, async () => {
            checked.malformed++;
            const { value, why } = malformedValue(p);
            const res = await send(server, op, { ids: ownIds, token: writer, override: { name: p.name, in: p.in, value } });
            const label = `${op.label} with ${p.name} ${why} (${value.length > 40 ? `${value.length} characters` : JSON.stringify(value)})`;
            assertErrorCode(res, 400, 'validation_failed', label);
            const fields: string[] = (res.body.error.details ?? []).map((d: { field: string }) => String(d.field).toLowerCase());
            assert.ok(
              fields.includes(p.name.toLowerCase()),
              `${label}: details should name ${p.name}, got ${JSON.stringify(res.body.error.details)}`,
            );
          });
        }
      });
    }

    describe('console admin API', () => {
      for (const op of consoleOperations) {
        test(`${op.label}: no session → 401`, async () => {
          checked.consoleUnauthorized++;
          const ids = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, randomUUID()]));
          const res = await send(server, op, { ids });
          assert.equal(res.status, 401, `${op.label} without a session: ${show(res)}`);
          const forged = await send(server, op, { ids, cookie: `cds_console=cds_session_${randomUUID()}` });
          assert.equal(forged.status, 401, `${op.label} with an unknown session cookie: ${show(forged)}`);
        });
      }
    });

    describe("console doors bounded by the organization's plan", () => {
      test('every console operation is either plan-checked here or listed with the reason it is not', () => {
        for (const op of consoleOperations)
          assert.ok(
            op.label in CONSOLE_PLAN_BOUND !== op.label in CONSOLE_PLAN_UNCHECKED,
            `${op.label}: add it to CONSOLE_PLAN_BOUND (requests naming each resource) or CONSOLE_PLAN_UNCHECKED (why not), once`,
          );
        const labels = new Set(consoleOperations.map((o) => o.label));
        for (const label of [...Object.keys(CONSOLE_PLAN_BOUND), ...Object.keys(CONSOLE_PLAN_UNCHECKED)])
          assert.ok(labels.has(label), `${label} is listed but the document has no such console operation`);
      });

      for (const op of consoleOperations.filter((o) => CONSOLE_PLAN_BOUND[o.label])) {
        test(`${op.label}: an administrator whose plan excludes the resource named → 403 plan_restricted`, async () => {
          let sent = 0;
          for (const resource of RESOURCES) {
            const admin = restrictedAdmin[resource]!;
            for (const request of CONSOLE_PLAN_BOUND[op.label](resource)) {
              const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => admin.ids[name]);
              const res = await consoleCall(server.url, admin.session, path, { method: op.method, body: request.body });
              assertErrorCode(res, 403, 'plan_restricted', `${op.label} naming ${request.why} for a plan without ${resource}`);
              sent++;
            }
          }
          assert.ok(sent > 0, `${op.label}: no request named a resource`);
          checked.consolePlanRestricted++;
        });
      }
    });

    test('coverage: every /v1 operation was checked, and every write operation for its scope', (t) => {
      const writes = v1Operations.filter((o) => o.write).length;
      t.diagnostic(
        `${v1Operations.length} /v1 operations (${writes} writes), ${consoleOperations.length} console operations: ${JSON.stringify(checked)}`,
      );
      assert.equal(checked.unauthorized, v1Operations.length);
      assert.equal(checked.planRestricted, v1Operations.length);
      assert.ok(checked.forbidden >= writes, `only ${checked.forbidden} operations checked for 403 forbidden; ${writes} write operations`);
      assert.equal(checked.consoleUnauthorized, consoleOperations.length);
      assert.equal(checked.consolePlanRestricted, Object.keys(CONSOLE_PLAN_BOUND).length);
      for (const key of Object.keys(checked) as Array<keyof typeof checked>) if (key !== 'forbiddenSkipped') checked[key] = 0;
      checked.forbiddenSkipped = 0;
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
