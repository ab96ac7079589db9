// What a caller sees of the SDK beyond the results: the User-Agent it sends, its request,
// response and retry hooks and the debug switch, the retries of a proxy's 502 and 504, and the
// one-line ConnectionError when nothing listens at the address.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import {
  ComplianceApiError,
  ComplianceClient,
  ConnectionError,
  SDK_VERSION,
  type ClientOptions,
  type RequestEvent,
  type ResponseEvent,
  type RetryEvent,
} from '../src/index.ts';
import { fastRetries, ok, startScriptedServer, type Answer, type ScriptedServer } from './support/scripted-server.ts';
import { startDemoService, type DemoService } from './support/real-server.ts';

/** What nginx answers when the service behind it is down or slow. */
const gateway =
  (status: 502 | 504): Answer =>
  (_req, res) => {
    const title = status === 502 ? '502 Bad Gateway' : '504 Gateway Time-out';
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(`<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`);
  };

describe('User-Agent, hooks, debug and gateway retries (scripted server)', () => {
  let server: ScriptedServer;
  const client = (options: Partial<ClientOptions> = {}) =>
    new ComplianceClient({ baseUrl: server.url, clientId: 'cds_id_test', clientSecret: 'cds_secret_test', ...fastRetries, ...options });

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('the version in the User-Agent is the package version', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(SDK_VERSION, pkg.version);
  });

  test('every request, the token request included, names the SDK and Node versions; a caller prefix goes first', async () => {
    server.script(ok([]), ok([]));
    await client().frameworks.list();
    const expected = `compliance-data-sdk/${SDK_VERSION} node/${process.versions.node}`;
    assert.equal(server.tokenRequests[0].headers['user-agent'], expected);
    assert.equal(server.requests[0].headers['user-agent'], expected);
    await client({ userAgent: 'acme-sync/2.1' }).controls.list();
    assert.equal(server.requests[1].headers['user-agent'], `acme-sync/2.1 ${expected}`);
    assert.throws(() => client({ userAgent: 'a\r\nX-Evil: 1' }), /userAgent must be a string of one line/);
  });

  test("a proxy's 502 and 504 are retried, and a write keeps one Idempotency-Key across them", async () => {
    server.script(gateway(502), gateway(504), ok([]));
    const res = await client().frameworks.list();
    assert.equal(res.response.attempts, 3);

    server.reset();
    const finding = { vulnerabilityId: 'api%23VUL-0001', title: 'x', status: 'open', severity: 'high' };
    server.script(gateway(502), gateway(504), ok(finding, 201));
    const created = await client().vulnerabilities.create({ vulnerabilityId: 'VUL-0001', title: 'x', severity: 'high', status: 'open' });
    assert.equal(created.response.attempts, 3);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    assert.equal(new Set(keys).size, 1, `one key for every attempt: ${keys.join(', ')}`);
    assert.equal(new Set(server.requests.map((r) => r.body.toString())).size, 1, 'the same body bytes on every attempt');
  });

  test('a 502 that persists ends in an error with the status, after the retries', async () => {
    server.script(gateway(502), gateway(502), gateway(502));
    await assert.rejects(client({ maxRetries: 2 }).tests.list(), (err: unknown) => {
      assert.ok(err instanceof ComplianceApiError);
      assert.equal(err.status, 502);
      assert.equal(err.code, 'unexpected_response');
      return true;
    });
    assert.equal(server.requests.length, 3);
  });

  test('hooks see each attempt, answer and retry, without the bearer token; a hook that throws breaks nothing', async () => {
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    const retries: RetryEvent[] = [];
    server.script(gateway(503 as 502), ok([{ controlId: 'c-1' }]));
    const res = await client({
      onRequest: (e) => {
        requests.push(e);
        e.headers.set('x-trace-id', `trace-${e.attempt}`);
        throw new Error('a broken observer');
      },
      onResponse: (e) => responses.push(e),
      onRetry: (e) => retries.push(e),
    }).controls.list();
    assert.deepEqual(res.data, [{ controlId: 'c-1' }]);
    // The token request, then two attempts of the list.
    assert.deepEqual(
      requests.map((e) => [e.method, new URL(e.url).pathname, e.attempt]),
      [
        ['POST', '/oauth/token', 1],
        ['GET', '/v1/controls', 1],
        ['GET', '/v1/controls', 2],
      ],
    );
    for (const e of requests) assert.equal(e.headers.get('authorization'), null);
    assert.equal(server.requests[1].headers['x-trace-id'], 'trace-2', 'headers a hook adds are sent');
    assert.match(String(server.requests[1].headers.authorization), /^Bearer /);
    assert.deepEqual(
      responses.map((e) => e.status),
      [200, 503, 200],
    );
    assert.ok(responses[1].error instanceof ComplianceApiError);
    assert.ok(responses.every((e) => e.durationMs >= 0));
    assert.equal(retries.length, 1);
    assert.equal(retries[0].reason, 'server_error');
    assert.equal(retries[0].nextAttempt, 2);
    assert.equal(retries[0].maxAttempts, 4);
  });

  test('client.request: any path with the token, a list query as one comma-separated value, a key for writes', async () => {
    server.script(ok([{ controlId: 'c-1' }]), gateway(502), ok({ id: 'x' }, 201));
    const read = await client().request<{ data: unknown[] }>('get', '/v1/controls', {
      query: { status: ['compliant', 'non_compliant'], count: 50 },
    });
    assert.deepEqual(read.data, [{ controlId: 'c-1' }]);
    assert.equal(server.requests[0].path, '/v1/controls?status=compliant%2Cnon_compliant&count=50');
    assert.match(String(server.requests[0].headers.authorization), /^Bearer tok-/);
    const write = await client().request('POST', '/v1/things', { body: { a: 1 }, headers: { 'x-extra': 'yes' } });
    assert.equal(write.response.attempts, 2);
    assert.equal(server.requests[1].headers['idempotency-key'], server.requests[2].headers['idempotency-key']);
    assert.equal(server.requests[2].headers['x-extra'], 'yes');
    assert.equal(server.requests[2].body.toString(), '{"a":1}');
    await assert.rejects(client().request('GET', 'https://elsewhere.example/v1/controls'), /path must start with "\/"/);
    await assert.rejects(client().request('GET', '//elsewhere.example/v1/controls'), TypeError);
    await assert.rejects(client().request('GET', '/v1/controls', { headers: { Authorization: 'Bearer x' } }), /set by the SDK/);
  });

  test('rate limited: the retry event carries the Retry-After wait', async () => {
    const retries: RetryEvent[] = [];
    server.script((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'slow down', details: [{ retryAfterSec: 1 }] } }));
    }, ok([]));
    await client({ onRetry: (e) => retries.push(e) }).policies.list();
    assert.equal(retries[0].reason, 'rate_limited');
    assert.equal(retries[0].delayMs, 1000);
  });

  test('debug: one line per attempt, answer and retry; never the secret or a token', async () => {
    const lines: string[] = [];
    server.script(gateway(502), ok([]));
    await client({ debug: (line) => lines.push(line) }).evidence.list();
    const text = lines.join('\n');
    assert.match(text, /-> POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token \(attempt 1\)/);
    assert.match(text, /<- 502 GET http:\/\/127\.0\.0\.1:\d+\/v1\/evidence \d+ ms/);
    assert.match(text, /retrying GET .*\/v1\/evidence in \d+ ms \(server_error; attempt 2 of 4\)/);
    assert.match(text, /<- 200 GET .*\/v1\/evidence \d+ ms/);
    assert.doesNotMatch(text, /cds_secret_test|tok-\d/);
  });
});

describe('nothing listening at the address', () => {
  test('ConnectionError, one line naming the address and the reason, after the retries', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const retries: RetryEvent[] = [];
    const sdk = new ComplianceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: 'cds_id_x',
      clientSecret: 'cds_secret_x',
      maxRetries: 2,
      ...fastRetries,
      onRetry: (e) => retries.push(e),
    });
    await assert.rejects(sdk.frameworks.list(), (err: unknown) => {
      assert.ok(err instanceof ConnectionError, String(err));
      assert.equal(err.message, `cannot reach http://127.0.0.1:${port}: connection refused`);
      assert.equal(err.code, 'ECONNREFUSED');
      assert.equal(err.url, `http://127.0.0.1:${port}/oauth/token`);
      assert.ok(err.cause instanceof Error, 'the platform error stays in cause');
      return true;
    });
    assert.deepEqual(
      retries.map((e) => e.reason),
      ['connection', 'connection'],
    );
  });
});

describe('a write through a gateway that loses the answer (real service)', () => {
  let svc: DemoService;
  let proxy: http.Server;
  let proxyUrl: string;
  let lost = 0;

  before(async () => {
    svc = await startDemoService('sqlite');
    const target = new URL(svc.server.url);
    // Forwards every request; the first POST's answer is read and thrown away, and the client gets
    // the 502 a load balancer sends when its upstream connection fails mid-answer.
    proxy = http.createServer((req, res) => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          if (req.method === 'POST' && req.url === '/v1/vulnerabilities' && lost === 0) {
            lost++;
            answer.resume();
            answer.on('end', () => {
              res.writeHead(502, { 'content-type': 'text/html' });
              res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
            });
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await svc.close();
  });

  test('the retry is answered from the stored response: the finding exists once', async () => {
    const sdk = svc.clientWith({ baseUrl: proxyUrl, ...fastRetries });
    const created = await sdk.vulnerabilities.create({
      vulnerabilityId: 'VUL-7502',
      title: 'Answer lost at the gateway',
      severity: 'low',
      status: 'open',
    });
    assert.equal(lost, 1, 'the gateway lost the first answer');
    assert.equal(created.response.status, 201);
    assert.equal(created.response.attempts, 2);
    assert.equal(created.response.idempotentReplayed, true, 'the second attempt replays the first, which the service did');
    const all = await svc.readWrite.vulnerabilities.list({ source: ['api'] }).toArray({ limit: 1000 });
    assert.equal(all.filter((v) => v.vulnerabilityId === 'api%23VUL-7502').length, 1);
  });
});
