// The service's edges under careless and hostile clients, on every database engine: bodies nested
// thousands of levels deep, the headers every answer carries (nosniff; no-store on the API), and
// report links with a user name or password. Then, once, requests Node's HTTP parser refuses
// before Fastify sees them (headers too large, malformed HTTP, the request time-out) over raw
// sockets: they too get the error body with a request ID.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { MAX_BODY_DEPTH } from '../../src/http/plugins/nul-guard.ts';

type Res = Awaited<ReturnType<typeof api>>;
const env = { RATE_LIMIT_MAX: '10000', UNAUTHENTICATED_RATE_LIMIT_MAX: '10000', TOKEN_RATE_LIMIT_MAX: '10000' };
const show = (res: Res) => `${res.status} ${JSON.stringify(res.body)}`;
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

let keySeq = 0;
const newKey = () => `edges-${Date.now().toString(36)}-${++keySeq}`;

function assertEnvelopeError(res: Res, status: number, details?: unknown) {
  assert.equal(res.status, status, show(res));
  assert.equal(res.body.error.code, 'validation_failed', show(res));
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'));
  if (details !== undefined) assert.deepEqual(res.body.error.details, details);
}

const tooDeep = [{ field: 'body', message: `is nested too deeply (at most ${MAX_BODY_DEPTH} levels)` }];

for (const dialect of dialects) {
  describe(`input and output edges (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    const json = (path: string, body: string, headers: Record<string, string> = {}, method = 'POST') =>
      api(server.url, path, undefined, { method, headers: { 'content-type': 'application/json', ...headers }, body });

    before(async () => {
      server = await startServer({ dialect, env });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      token = await getToken(server.url, client);
      const created = await api(server.url, '/v1/vulnerabilities', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
        body: JSON.stringify({ vulnerabilityId: 'VUL-0001', title: 'Exposed admin panel', severity: 'high', status: 'open' }),
      });
      assert.equal(created.status, 201, show(created));
    });
    after(() => server?.close());

    describe('deep JSON nesting', () => {
      test('8,000 levels to /oauth/token → 400 invalid_request naming the body (was 500 server_error)', async () => {
        // 16 KB is over the token endpoint's own body limit, so that answers first…
        const res = await json('/oauth/token', nested(8000));
        assert.equal(res.status, 400, show(res));
        assert.equal((res.body as { error: string }).error, 'invalid_request', show(res));
        assert.match((res.body as { error_description: string }).error_description, /^body: /);
        // …and a deep body within that limit is refused for its depth.
        const deep = await json('/oauth/token', nested(1000));
        assert.equal(deep.status, 400, show(deep));
        assert.deepEqual(deep.body, {
          error: 'invalid_request',
          error_description: `body: is nested too deeply (at most ${MAX_BODY_DEPTH} levels)`,
        });
      });

      test('8,000 levels to an unknown POST path → 400 validation_failed naming the body (was 500 internal_error)', async () => {
        assertEnvelopeError(await json('/no/such/path', nested(8000)), 400, tooDeep);
        assertEnvelopeError(await json('/v1/no-such-resource', nested(8000), { authorization: `Bearer ${token}` }), 400, tooDeep);
      });

      test('8,000 levels inside an object body to /v1, the console and the token endpoint: never a 500', async () => {
        const inObject = `{"customFields":${nested(8000)}}`;
        const patch = await json(
          '/v1/vulnerabilities/api%23VUL-0001',
          inObject,
          { authorization: `Bearer ${token}`, 'idempotency-key': newKey() },
          'PATCH',
        );
        assertEnvelopeError(patch, 400);
        assertEnvelopeError(await json('/console/api/session', `{"email":"a@example.com","password":"x","extra":${nested(8000)}}`), 400);
        const tokenRes = await json(
          '/oauth/token',
          `{"grant_type":"client_credentials","client_id":"x","client_secret":"y","extra":${nested(8000)}}`,
        );
        assert.equal(tokenRes.status, 400, show(tokenRes));
        assert.equal(tokenRes.body.error, 'invalid_request');
      });

      test(`exactly ${MAX_BODY_DEPTH} levels pass the depth check; ${MAX_BODY_DEPTH + 1} do not`, async () => {
        const atLimit = await json('/no/such/path', nested(MAX_BODY_DEPTH));
        assert.equal(atLimit.status, 404, show(atLimit));
        assertEnvelopeError(await json('/no/such/path', nested(MAX_BODY_DEPTH + 1)), 400, tooDeep);
      });

      test('the NUL check still names the field that holds U+0000', async () => {
        const res = await json(
          '/v1/vulnerabilities/api%23VUL-0001',
          JSON.stringify({ reportLink: 'https://example.com/\u0000' }),
          {
            authorization: `Bearer ${token}`,
            'idempotency-key': newKey(),
          },
          'PATCH',
        );
        assertEnvelopeError(res, 400, [{ field: 'reportLink', message: 'must not contain the NUL character (U+0000)' }]);
      });
    });

    describe('response headers', () => {
      test('every API answer carries X-Content-Type-Options: nosniff and Cache-Control: no-store (success, errors, unknown routes, bad URLs)', async () => {
        const cases: Array<[string, Res]> = [
          ['GET /v1/frameworks', await api(server.url, '/v1/frameworks', token)],
          ['GET /v1/frameworks without a token', await api(server.url, '/v1/frameworks')],
          ['GET /v1/no-such-resource', await api(server.url, '/v1/no-such-resource', token)],
          ['GET /v1/% (malformed URL)', await api(server.url, '/v1/%', token)],
          [
            'POST /oauth/token (wrong client)',
            await json('/oauth/token', JSON.stringify({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' })),
          ],
          ['GET /console/api/session without a session', await api(server.url, '/console/api/session')],
          ['GET /console/api/credentials without a session', await api(server.url, '/console/api/credentials')],
        ];
        for (const [label, res] of cases) {
          assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${label}: ${res.status}`);
          assert.equal(res.headers.get('cache-control'), 'no-store', `${label}: ${res.status}`);
          assert.ok(res.headers.get('x-request-id'), label);
        }
      });

      test('other answers carry nosniff; the console pages and assets keep their own caching', async () => {
        const health = await api(server.url, '/healthz');
        assert.equal(health.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(health.headers.get('cache-control'), null);
        const page = await api(server.url, '/console/');
        assert.equal(page.status, 200);
        assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(page.headers.get('cache-control'), 'no-cache');
        const asset = String(page.body).match(/(?:src|href)="(\/console\/assets\/[^"]+)"/)?.[1];
        assert.ok(asset, 'the console page links an asset');
        const res = await api(server.url, asset);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000/);
      });
    });

    describe('reportLink', () => {
      const patch = (reportLink: string) =>
        json(
          '/v1/vulnerabilities/api%23VUL-0001',
          JSON.stringify({ reportLink }),
          { authorization: `Bearer ${token}`, 'idempotency-key': newKey() },
          'PATCH',
        );

      test('a link with a user name or password → 400 naming reportLink; the stored link stays as it was', async () => {
        const ok = await patch('https://reports.example.com/findings/VUL-0001');
        assert.equal(ok.status, 200, show(ok));
        for (const link of [
          'https://user:pass@reports.example.com/findings/VUL-0001',
          'https://user@reports.example.com/',
          'https://:secret@reports.example.com/',
          'http://@reports.example.com/',
          'https://reports.example.com@evil.example/',
        ]) {
          assertEnvelopeError(await patch(link), 400, [{ field: 'reportLink', message: 'must not contain a user name or password' }]);
        }
        const got = await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token);
        assert.equal(got.body.data.reportLink, 'https://reports.example.com/findings/VUL-0001');
      });

      test('an @ in the path or query is not a user name', async () => {
        const res = await patch('https://reports.example.com/people/@ada?by=a@example.com');
        assert.equal(res.status, 200, show(res));
        assert.equal(res.body.data.reportLink, 'https://reports.example.com/people/@ada?by=a@example.com');
      });
    });
  });
}

// ---- Requests Node refuses before Fastify sees them ----

interface RawAnswer {
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  /** ms from connect to close */
  elapsed: number;
}

/** Sends `chunks` (a function: written over time) on a raw socket; resolves with the answer once the server closes. */
function rawRequest(port: number, send: (socket: net.Socket) => void, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms`));
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ statusLine, headers, body: rest.join('\r\n\r\n'), elapsed: Date.now() - started });
    });
    socket.on('connect', () => send(socket));
  });
}

function assertRawEnvelope(answer: RawAnswer, status: number, field: string) {
  assert.match(answer.statusLine, new RegExp(`^HTTP/1\\.1 ${status} `), JSON.stringify(answer));
  assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body), 'Content-Length matches the body');
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(answer.headers.connection, 'close');
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.equal(answer.headers['cache-control'], 'no-store');
  const body = JSON.parse(answer.body);
  assert.deepEqual(Object.keys(body).sort(), ['error', 'meta']);
  assert.equal(body.error.code, 'validation_failed');
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.error.details.length, 1);
  assert.equal(body.error.details[0].field, field);
  assert.equal(typeof body.error.details[0].message, 'string');
  assert.match(body.meta.requestId, /^req_[0-9a-f]{24}$/);
  assert.equal(answer.headers['x-request-id'], body.meta.requestId);
  return body;
}

describe('requests refused by the HTTP parser answer the error body (raw sockets)', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    // The smallest request time-out the configuration accepts, for the 408 case.
    server = await startServer({ env: { ...env, REQUEST_TIMEOUT_MS: '1000' } });
    port = Number(new URL(server.url).port);
  });
  after(() => server?.close());

  test('headers larger than the limit → 431 naming headers, with a request ID; the connection closes', async () => {
    const answer = await rawRequest(port, (s) => s.write(`GET /v1/frameworks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assertRawEnvelope(answer, 431, 'headers');
  });

  test('a malformed request → 400 naming what is wrong, with a request ID; the connection closes', async () => {
    assertRawEnvelope(await rawRequest(port, (s) => s.write('GARBAGE\r\n\r\n')), 400, 'method');
    assertRawEnvelope(
      await rawRequest(port, (s) => s.write('GET /v1/frameworks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')),
      400,
      'headers',
    );
    assertRawEnvelope(
      await rawRequest(port, (s) =>
        s.write('POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello'),
      ),
      400,
      'Content-Length',
    );
  });

  test('a request still arriving after the request time-out → 408 naming request, with a request ID', { timeout: 60_000 }, async () => {
    // Trickled header lines keep the connection busy (no idle time-out), so the request time-out
    // (checked by Node every 30 s) is what ends it.
    let timer: NodeJS.Timeout | undefined;
    const answer = await rawRequest(
      port,
      (s) => {
        s.write('GET /v1/frameworks HTTP/1.1\r\nHost: x\r\n');
        let n = 0;
        timer = setInterval(() => s.writable && s.write(`X-Slow-${++n}: y\r\n`), 200);
        s.on('close', () => clearInterval(timer));
      },
      45_000,
    );
    clearInterval(timer);
    const body = assertRawEnvelope(answer, 408, 'request');
    assert.match(body.error.details[0].message, /within 1 s$/);
  });
});
