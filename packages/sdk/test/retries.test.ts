// The spec's retry rules, against a scripted HTTP server on loopback: what is retried (429 after
// Retry-After, 500, 503, dropped connections, time-outs, a write still in progress), what is
// not (400, 403, 404, a reused key), that writes keep one Idempotency-Key and the same body
// across attempts, and where the SDK gives up.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ComplianceClient,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
  type ClientOptions,
} from '../src/index.ts';
import { drop, fastRetries, ok, slow, startScriptedServer, v1Error, type ScriptedServer } from './support/scripted-server.ts';

const finding = {
  vulnerabilityId: 'api%23VUL-0001',
  title: 'x',
  status: 'open',
  severity: 'high',
  source: 'api',
  assignees: [],
  cveId: '',
  customFields: [],
  firstSeen: 1,
  addedOn: 1,
  modifiedOn: null,
};
const createBody = { vulnerabilityId: 'VUL-0001', title: 'Exposed admin panel', severity: 'high', status: 'open' } as const;

describe('retries (scripted server)', () => {
  let server: ScriptedServer;
  const client = (options: Partial<ClientOptions> = {}) =>
    new ComplianceClient({ baseUrl: server.url, clientId: 'cds_id_test', clientSecret: 'cds_secret_test', ...fastRetries, ...options });

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('429: waits the Retry-After seconds, then retries and succeeds', async () => {
    server.script(v1Error(429, 'rate_limit_exceeded', { 'retry-after': '1' }, [{ retryAfterSec: 1 }]), ok([]));
    const res = await client().frameworks.list();
    assert.deepEqual(res.data, []);
    assert.equal(res.response.attempts, 2);
    assert.equal(server.requests.length, 2);
    const waited = server.requests[1].at - server.requests[0].at;
    assert.ok(waited >= 950, `waited ${waited} ms for Retry-After: 1`);
  });

  test('500 and 503 are retried with backoff until a success', async () => {
    server.script(
      v1Error(500, 'internal_error'),
      v1Error(503, 'upstream_unavailable', {}, [{ dependency: 'database', issue: 'down' }]),
      ok([]),
    );
    const res = await client().controls.list();
    assert.equal(res.response.attempts, 3);
    assert.equal(server.requests.length, 3);
  });

  test('a dropped connection is retried', async () => {
    server.script(drop, drop, ok([]));
    const res = await client().policies.list();
    assert.equal(res.response.attempts, 3);
  });

  test('a slow answer times out and the retry succeeds; a time-out on every attempt gives TimeoutError', async () => {
    server.script(slow(1000, ok([])), ok([{ testId: 'test_a' }]));
    const res = await client({ timeoutMs: 200 }).tests.list();
    assert.deepEqual(res.data, [{ testId: 'test_a' }]);
    assert.equal(res.response.attempts, 2);

    server.requests.length = 0;
    server.script(slow(600, ok([])), slow(600, ok([])), slow(600, ok([])));
    const started = performance.now();
    await assert.rejects(client({ timeoutMs: 150, maxRetries: 2 }).tests.list(), (err: unknown) => {
      assert.ok(err instanceof TimeoutError);
      assert.equal(err.timeoutMs, 150);
      return true;
    });
    assert.equal(server.requests.length, 3, 'the first attempt and two retries');
    assert.ok(performance.now() - started < 1500, 'each attempt gave up at its time-out');
  });

  test('gives up after maxRetries retries and throws the last error with its body', async () => {
    server.script(
      ...Array.from({ length: 5 }, () => v1Error(503, 'upstream_unavailable', {}, [{ dependency: 'redis', issue: 'unreachable' }])),
    );
    await assert.rejects(client({ maxRetries: 3 }).frameworks.list(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.equal(err.status, 503);
      assert.equal(err.code, 'upstream_unavailable');
      assert.deepEqual(err.details, [{ dependency: 'redis', issue: 'unreachable' }]);
      assert.match(err.requestId ?? '', /^req_test_/);
      return true;
    });
    assert.equal(server.requests.length, 4);
    server.script(drop, drop);
    server.requests.length = 0;
    await assert.rejects(client({ maxRetries: 1 }).frameworks.list(), ConnectionError);
    assert.equal(server.requests.length, 2);
  });

  test('maxRetries: 0 sends once', async () => {
    server.script(v1Error(500, 'internal_error'));
    await assert.rejects(client({ maxRetries: 0 }).frameworks.list(), InternalServerError);
    assert.equal(server.requests.length, 1);
  });

  for (const [status, code, Kind] of [
    [400, 'validation_failed', ValidationError],
    [403, 'forbidden', PermissionDeniedError],
    [403, 'plan_restricted', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
  ] as const) {
    test(`${status} ${code} is not retried`, async () => {
      const details = status === 400 ? [{ field: 'status', message: "unknown value 'x'" }] : [];
      server.script(v1Error(status, code, {}, details), ok([]));
      await assert.rejects(client().controls.get('c-1'), (err: unknown) => {
        assert.ok(err instanceof Kind);
        assert.equal(err.status, status);
        assert.equal(err.code, code);
        assert.equal(err.message, `scripted ${code}`);
        assert.deepEqual(err.details, details);
        assert.ok(err.requestId);
        return true;
      });
      assert.equal(server.requests.length, 1);
    });
  }

  test('a Retry-After longer than maxRetryAfterMs is not waited for', async () => {
    server.script(v1Error(429, 'rate_limit_exceeded', { 'retry-after': '120' }, [{ retryAfterSec: 120 }]));
    const started = performance.now();
    await assert.rejects(client({ maxRetryAfterMs: 60_000 }).frameworks.list(), (err: unknown) => {
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.retryAfterSec, 120);
      assert.deepEqual(err.details, [{ retryAfterSec: 120 }]);
      return true;
    });
    assert.equal(server.requests.length, 1);
    assert.ok(performance.now() - started < 1000);
  });

  test('a write keeps one Idempotency-Key and the same body bytes across every retry', async () => {
    server.script(
      v1Error(503, 'upstream_unavailable'),
      drop,
      v1Error(429, 'rate_limit_exceeded', { 'retry-after': '0' }),
      ok(finding, 201),
    );
    const res = await client().vulnerabilities.create(createBody);
    assert.equal(res.response.status, 201);
    assert.equal(res.response.attempts, 4);
    assert.equal(server.requests.length, 4);
    const keys = new Set(server.requests.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match([...keys][0] as string, /^[0-9a-f-]{36}$/);
    for (const r of server.requests) {
      assert.equal(r.method, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(r.body, server.requests[0].body);
    }
    assert.deepEqual(JSON.parse(server.requests[0].body.toString()), createBody);
    assert.equal(res.response.idempotencyKey, [...keys][0]);
  });

  test('a write that gives up carries its key, so the caller can try again later with it', async () => {
    server.script(drop, drop);
    let key: string | undefined;
    await assert.rejects(client({ maxRetries: 1 }).vulnerabilities.create(createBody), (err: unknown) => {
      assert.ok(err instanceof ConnectionError);
      key = err.idempotencyKey;
      return true;
    });
    assert.equal(key, server.requests[0].headers['idempotency-key']);
    server.script(ok(finding, 201, { 'idempotent-replayed': 'true' }));
    const res = await client().vulnerabilities.create(createBody, { idempotencyKey: key });
    assert.equal(res.response.idempotentReplayed, true);
    assert.equal(server.requests[2].headers['idempotency-key'], key);
    server.script(v1Error(404, 'not_found'));
    await assert.rejects(client().frameworks.list(), (err: unknown) => err instanceof NotFoundError && err.idempotencyKey === undefined);
  });

  test('two calls get two keys; a caller-provided key is used as is on every attempt', async () => {
    await client().vulnerabilities.update('api%23VUL-0001', { reportLink: '' });
    await client().vulnerabilities.update('api%23VUL-0001', { reportLink: '' });
    assert.notEqual(server.requests[0].headers['idempotency-key'], server.requests[1].headers['idempotency-key']);
    assert.equal(server.requests[0].path, '/v1/vulnerabilities/api%23VUL-0001');

    server.requests.length = 0;
    server.script(v1Error(500, 'internal_error'), ok(finding));
    await client().vulnerabilities.update('api#VUL-0001', { assigneeEmail: 'ada@example.com' }, { idempotencyKey: 'link-vul-0001.v2' });
    assert.deepEqual(
      server.requests.map((r) => r.headers['idempotency-key']),
      ['link-vul-0001.v2', 'link-vul-0001.v2'],
    );
    assert.equal(server.requests[0].method, 'PATCH');
    assert.equal(server.requests[0].path, '/v1/vulnerabilities/api%23VUL-0001', 'the decoded ID is encoded once');
    await assert.rejects(client().vulnerabilities.create(createBody, { idempotencyKey: 'has space' }), TypeError);
  });

  test('409 idempotency_request_in_progress is retried with the same key; idempotency_key_reused is final', async () => {
    server.script(
      v1Error(409, 'idempotency_request_in_progress'),
      v1Error(409, 'idempotency_request_in_progress'),
      ok(finding, 201, { 'idempotent-replayed': 'true' }),
    );
    const res = await client().vulnerabilities.create(createBody, { idempotencyKey: 'k-1' });
    assert.equal(res.response.idempotentReplayed, true);
    assert.equal(server.requests.length, 3);
    assert.ok(server.requests.every((r) => r.headers['idempotency-key'] === 'k-1'));

    server.requests.length = 0;
    server.script(v1Error(409, 'idempotency_key_reused'));
    await assert.rejects(
      client().vulnerabilities.create(createBody, { idempotencyKey: 'k-1' }),
      (err: unknown) => err instanceof ConflictError && err.code === 'idempotency_key_reused',
    );
    assert.equal(server.requests.length, 1);
  });

  test('reads carry no Idempotency-Key; list filters are written comma-separated', async () => {
    await client().policies.list({
      status: ['draft', 'published'],
      isRelevant: false,
      assigneeEmails: ['ada+sec@example.com'],
      departments: ['No Department'],
      nextReviewAtFrom: 0,
    });
    const r = server.requests[0];
    assert.equal(r.headers['idempotency-key'], undefined);
    const query = new URL(r.path, server.url).searchParams;
    assert.equal(query.get('status'), 'draft,published');
    assert.equal(query.get('isRelevant'), 'false');
    assert.equal(query.get('assigneeEmails'), 'ada+sec@example.com', 'a + survives (sent as %2B)');
    assert.match(r.path, /assigneeEmails=ada%2Bsec%40example\.com/);
    assert.equal(query.get('departments'), 'No Department');
    assert.equal(query.get('nextReviewAtFrom'), '0');
    await assert.rejects(client().policies.list({ departments: ['a,b'] }), TypeError);
  });

  test('an abort signal stops the waits between retries', async () => {
    server.script(v1Error(429, 'rate_limit_exceeded', { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const started = performance.now();
    await assert.rejects(client().frameworks.list(undefined, { signal: controller.signal }), /stop/);
    assert.ok(performance.now() - started < 2000);
    assert.equal(server.requests.length, 1);
  });
});
