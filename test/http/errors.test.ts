// Cross-cutting response rules on every database engine: the /v1 error body and success
// envelope, request IDs, validation of query parameters and comma-separated lists, unknown
// routes, unexpected failures, and the operations endpoints (/healthz, /readyz, /metrics,
// /openapi.json).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import pkg from '../../package.json' with { type: 'json' };

type Res = { status: number; headers: Headers; body: any };

// Limits are pinned in rate-limit.test.ts; here they must not interfere.
const env = { RATE_LIMIT_MAX: '10000', UNAUTHENTICATED_RATE_LIMIT_MAX: '10000' };

function assertError(res: Res, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'meta']);
  assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'details', 'message']);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.ok(Array.isArray(res.body.error.details));
  assert.deepEqual(Object.keys(res.body.meta), ['requestId']);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
  return res.body.error.details as any[];
}

function assertEnvelope(res: Res) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'meta']);
  assert.equal(res.body.success, undefined);
  assert.equal(typeof res.body.meta.requestId, 'string');
  assert.ok(res.body.meta.requestId.length > 0);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
}

/** Every `$ref` value anywhere in `node`. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refs(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refs(value, out);
    }
  }
  return out;
}

/** Resolves a local JSON pointer (`#/components/schemas/X`) inside `doc`; undefined if it does not resolve. */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const parts = ref
    .slice(1)
    .split('/')
    .filter((p, i) => !(i === 0 && p === ''))
    .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: any = doc;
  for (const part of parts) {
    if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

for (const dialect of dialects) {
  describe(`errors and envelopes (${dialect})`, () => {
    let server: TestServer;
    let client: Client;
    let token: string;

    before(async () => {
      server = await startServer({ dialect, env });
      client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      await server.database.db.kysely
        .insertInto('frameworks')
        .values({
          id: randomUUID(),
          organization_id: client.organizationId,
          name: 'Only Framework',
          next_audit_date: null,
          tsc_selections: JSON.stringify(['Security']),
          added_by: null,
          added_on: Date.UTC(2026, 0, 1),
          last_modified_by: null,
          modified_on: null,
        })
        .execute();
    });
    after(() => server?.close());

    test('an unknown route answers 404 not_found with the error body', async () => {
      assert.deepEqual(assertError(await api(server.url, '/nothing-here'), 404, 'not_found'), []);
      assert.deepEqual(assertError(await api(server.url, '/v1/nothing-here', token), 404, 'not_found'), []);
      assert.deepEqual(assertError(await api(server.url, '/v2/frameworks', token), 404, 'not_found'), []);
    });

    test('a known path with a method it does not serve answers 404 not_found', async () => {
      const res = await api(server.url, '/v1/frameworks', token, { method: 'DELETE' });
      assert.deepEqual(assertError(res, 404, 'not_found'), []);
    });

    test('a trailing slash or a plural typo is another (unknown) route', async () => {
      assertError(await api(server.url, '/v1/frameworks/', token), 404, 'not_found');
      assertError(await api(server.url, '/v1/framework', token), 404, 'not_found');
    });

    test('an unknown query parameter answers 400 validation_failed naming it', async () => {
      const details = assertError(await api(server.url, '/v1/frameworks?bogus=1', token), 400, 'validation_failed');
      assert.equal(details.length, 1);
      assert.equal(details[0].field, 'bogus');
      assert.equal(typeof details[0].message, 'string');
      assert.deepEqual(Object.keys(details[0]).sort(), ['field', 'message']);
    });

    test('an unknown value in a comma-separated list answers 400 naming the parameter and the value', async () => {
      const details = assertError(await api(server.url, '/v1/frameworks?fields=addedOn,bogus', token), 400, 'validation_failed');
      assert.equal(details.length, 1);
      assert.equal(details[0].field, 'fields');
      assert.match(details[0].message, /bogus/);
      assert.doesNotMatch(details[0].message, /'addedOn'/, 'the known value is not reported');
    });

    test('list values are matched exactly (case matters, no prefixes)', async () => {
      for (const value of ['AddedOn', 'added', 'addedOnX', 'tscselections']) {
        const details = assertError(await api(server.url, `/v1/frameworks?fields=${value}`, token), 400, 'validation_failed');
        assert.equal(details[0].field, 'fields');
        assert.ok(details[0].message.includes(value), details[0].message);
      }
    });

    test('spaces around commas are accepted in list values', async () => {
      for (const query of [
        'fields=addedOn,%20tscSelections',
        'fields=addedOn%20,tscSelections',
        'fields=%20addedOn%20,%20%20tscSelections%20',
      ]) {
        const res = await api(server.url, `/v1/frameworks?${query}`, token);
        assertEnvelope(res);
        assert.equal(res.body.data.length, 1);
        assert.equal(res.body.data[0].addedOn, Date.UTC(2026, 0, 1));
        assert.deepEqual(res.body.data[0].tscSelections, ['Security']);
      }
    });

    test('an empty list value answers 400 validation_failed naming the parameter', async () => {
      for (const query of ['fields=', 'fields=%20', 'fields=,', 'fields=addedOn,', 'entityIds=', 'entityIds=,']) {
        const details = assertError(await api(server.url, `/v1/frameworks?${query}`, token), 400, 'validation_failed');
        assert.equal(details.length, 1, query);
        assert.equal(details[0].field, query.split('=')[0], query);
        assert.match(details[0].message, /must not be empty|without empty entries/, query);
      }
    });

    test('a list parameter given twice answers 400 asking for one comma-separated value', async () => {
      const details = assertError(
        await api(server.url, '/v1/frameworks?fields=addedOn&fields=tscSelections', token),
        400,
        'validation_failed',
      );
      assert.deepEqual(
        details.map((d: any) => d.field),
        ['fields'],
      );
      assert.match(details[0].message, /comma-separated/);
    });

    test('a malformed URL answers 400 validation_failed with the error body', async () => {
      const res = await api(server.url, '/v1/frameworks/%', token);
      const details = assertError(res, 400, 'validation_failed');
      assert.ok(details.length > 0);
    });

    test('every success has the {data, meta: {requestId}} envelope with X-Request-Id equal to meta.requestId', async () => {
      const res = await api(server.url, '/v1/frameworks', token);
      assertEnvelope(res);
      assert.ok(Array.isArray(res.body.data));
      const withFields = await api(server.url, '/v1/frameworks?fields=addedOn', token);
      assertEnvelope(withFields);
    });

    test('request IDs are unique across requests, successes and errors alike', async () => {
      const ids = new Set<string>();
      const paths = ['/v1/frameworks', '/v1/frameworks?bogus=1', '/v1/nothing', '/healthz'];
      for (let i = 0; i < 40; i++) {
        const res = await api(server.url, paths[i % paths.length], i % 5 === 4 ? undefined : token);
        const id = res.headers.get('x-request-id');
        assert.ok(id, 'every response carries X-Request-Id');
        if (res.body?.meta) assert.equal(res.body.meta.requestId, id);
        ids.add(id);
      }
      assert.equal(ids.size, 40);
    });

    test('a request ID sent by the client is not echoed: the service chooses its own', async () => {
      const mine = 'client-chosen-id';
      const a = await api(server.url, '/v1/frameworks', token, { headers: { 'x-request-id': mine } });
      const b = await api(server.url, '/v1/frameworks', token, { headers: { 'x-request-id': mine } });
      assertEnvelope(a);
      assertEnvelope(b);
      assert.notEqual(a.body.meta.requestId, mine);
      assert.notEqual(a.body.meta.requestId, b.body.meta.requestId);
    });

    test('401 and 403 answers carry the request ID too', async () => {
      assertError(await api(server.url, '/v1/frameworks'), 401, 'unauthorized');
      const restricted = await createOrgWithCredential(server.system, { plan: 'control' });
      assertError(await api(server.url, '/v1/frameworks', await getToken(server.url, restricted)), 403, 'plan_restricted');
    });

    test('/healthz answers 200 with the version the node runs (package.json)', async () => {
      const res = await api(server.url, '/healthz');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'ok', version: pkg.version });
    });

    test('/readyz answers 200 ready with no details; the operations listener adds the checks of the database and the rate-limit store', async () => {
      const res = await api(server.url, '/readyz');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'ready' });
      const ops = await api(server.opsUrl, '/readyz');
      assert.equal(ops.status, 200);
      assert.deepEqual(ops.body, { status: 'ready', checks: { database: dialect, rateLimitStore: 'memory' } });
    });

    test('/metrics is not served on the API port (404), only on the operations listener', async () => {
      const res = await api(server.url, '/metrics');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    });

    test('/metrics exposes cds_http_requests_total labelled by route pattern, never by raw URL', async () => {
      await api(server.url, '/v1/frameworks?fields=addedOn', token);
      await api(server.url, '/v1/some-unknown-path-7f3a', token);
      const res = await api(server.opsUrl, '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const text = res.body as string;
      assert.match(text, /^# TYPE cds_http_requests_total counter$/m);
      assert.match(text, /^cds_http_requests_total\{[^}]*route="\/v1\/frameworks"[^}]*status="200"[^}]*\} \d+$/m);
      assert.match(text, /^cds_http_requests_total\{[^}]*status="404"[^}]*\} \d+$/m);
      assert.ok(!text.includes('some-unknown-path-7f3a'), 'an unknown URL is not a label value');
      assert.ok(!text.includes('fields=addedOn'), 'query strings are not label values');
      assert.match(text, /^# TYPE cds_rate_limit_rejections_total counter$/m);
    });
  });

  describe(`unexpected failures (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env });
    });
    after(() => server?.close());

    test('an unexpected error answers 500 internal_error with the request ID and no SQL or stack', async () => {
      const token = await getToken(server.url, await createOrgWithCredential(server.system));
      await sql`alter table frameworks rename to frameworks_gone`.execute(server.database.db.kysely);
      const res = await api(server.url, '/v1/frameworks', token);
      assert.deepEqual(assertError(res, 500, 'internal_error'), []);
      assert.ok(res.body.error.message.includes(res.body.meta.requestId), 'the message quotes the request ID');
      const raw = JSON.stringify(res.body);
      assert.doesNotMatch(raw, /frameworks|select|relation|no such table|\bat\s+\S+\.ts/i);
    });
  });

  describe(`rate-limit rejections in /metrics (${dialect})`, () => {
    test('cds_rate_limit_rejections_total counts a 429 by limiter', async () => {
      const server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '2' } });
      try {
        const token = await getToken(server.url, await createOrgWithCredential(server.system));
        let limited: Res | undefined;
        for (let i = 0; i < 5 && !limited; i++) {
          const res = await api(server.url, '/v1/frameworks', token);
          if (res.status === 429) limited = res;
        }
        assert.ok(limited, 'a 429 arrived');
        assertError(limited, 429, 'rate_limit_exceeded');
        const text = (await api(server.opsUrl, '/metrics')).body as string;
        assert.match(text, /^cds_rate_limit_rejections_total\{limiter="api"\} [1-9]\d*$/m);
        assert.match(text, /^cds_http_requests_total\{[^}]*route="\/v1\/frameworks"[^}]*status="429"[^}]*\} [1-9]\d*$/m);
      } finally {
        await server.close();
      }
    });
  });
}

describe('GET /openapi.json', () => {
  let server: TestServer;
  let doc: any;

  before(async () => {
    server = await startServer();
    const res = await api(server.url, '/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });
  after(() => server?.close());

  test('is an OpenAPI 3.1 document with info and the bearerAuth (OAuth 2.0 client credentials) security scheme', () => {
    assert.equal(typeof doc.openapi, 'string');
    assert.ok(doc.openapi.startsWith('3.1'), doc.openapi);
    assert.equal(typeof doc.info?.title, 'string');
    assert.equal(typeof doc.info?.version, 'string');
    const scheme = doc.components.securitySchemes.bearerAuth;
    assert.equal(scheme.type, 'oauth2');
    assert.equal(scheme.flows.clientCredentials.tokenUrl, `${server.url}/oauth/token`);
    assert.deepEqual(Object.keys(scheme.flows.clientCredentials.scopes).sort(), [
      'control:read',
      'control:write',
      'evidence:read',
      'evidence:write',
      'framework:read',
      'framework:write',
      'policy:read',
      'policy:write',
      'test:read',
      'test:write',
      'vulnerability:read',
      'vulnerability:write',
    ]);
  });

  test('documents every route', () => {
    for (const path of ['/oauth/token', '/v1/frameworks', '/healthz', '/readyz']) {
      assert.ok(doc.paths[path], `${path} is documented`);
    }
    assert.equal(doc.paths['/metrics'], undefined, '/metrics is on the operations listener, not the API');
    assert.ok(doc.paths['/oauth/token'].post);
    assert.ok(doc.paths['/v1/frameworks'].get);
  });

  test('every $ref resolves inside the document', () => {
    const all = refs(doc);
    assert.ok(all.length > 0);
    for (const ref of all) assert.notEqual(resolvePointer(doc, ref), undefined, `${ref} resolves`);
  });

  test('every operation has responses with a description, and a success response', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        assert.ok(op.responses && Object.keys(op.responses).length > 0, `${method} ${path} has responses`);
        assert.ok(
          Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)),
          `${method} ${path} has a 2xx response`,
        );
        for (const [status, response] of Object.entries<any>(op.responses)) {
          assert.equal(typeof response.description, 'string', `${method} ${path} ${status} has a description`);
        }
      }
    }
  });

  test('each /v1 operation documents 400/401/403/429/503 with the error body, and bearerAuth security', () => {
    // GET /v1/program/schema is public: a format's JSON Schema, with no input and no credential.
    const v1 = Object.entries<any>(doc.paths).filter(([path]) => path.startsWith('/v1/') && path !== '/v1/program/schema');
    assert.ok(v1.length > 0);
    for (const [path, item] of v1) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const status of ['400', '401', '403', '429', '503']) {
          const response = op.responses[status];
          assert.ok(response, `${method} ${path} documents ${status}`);
          const schema = response.content?.['application/json']?.schema;
          assert.equal(schema?.$ref, '#/components/schemas/ErrorBody', `${method} ${path} ${status} uses ErrorBody`);
        }
        assert.ok(Array.isArray(op.security), `${method} ${path} has security`);
        assert.ok(
          op.security.some((s: object) => 'bearerAuth' in s),
          `${method} ${path} requires bearerAuth`,
        );
      }
    }
  });

  test('the token endpoint takes JSON only and documents its OAuth error responses', () => {
    const op = doc.paths['/oauth/token'].post;
    assert.deepEqual(Object.keys(op.requestBody.content), ['application/json']);
    assert.deepEqual(op.requestBody.content['application/json'].schema.required.sort(), ['client_id', 'client_secret', 'grant_type']);
    for (const status of ['400', '401', '429', '503']) {
      assert.equal(op.responses[status]?.content?.['application/json']?.schema?.$ref, '#/components/schemas/OAuthErrorBody', status);
    }
    assert.ok(!op.security || op.security.length === 0, 'the token endpoint needs no bearer token');
  });

  test('the error body schema lists every error code of the spec', () => {
    const codes = doc.components.schemas.ErrorBody.properties.error.properties.code.enum;
    for (const code of [
      'validation_failed',
      'idempotency_key_required',
      'unauthorized',
      'token_revoked',
      'token_stale',
      'forbidden',
      'plan_restricted',
      'not_found',
      'idempotency_key_reused',
      'idempotency_request_in_progress',
      'rate_limit_exceeded',
      'internal_error',
      'upstream_unavailable',
    ]) {
      assert.ok(codes.includes(code), code);
    }
  });
});
