// What the real server process writes to its log about a request: the route and a redacted query,
// never the raw URL, so that a secret a careless client puts in a query string (an access token,
// a session value) never reaches the log. Logging does not depend on the database engine: SQLite.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, type TestDatabase, type TestStore } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrgWithCredential, getToken } from '../harness/server.ts';

const SECRET = 'S3cretValueThatMustNotBeLogged';

describe('request logging (server process, LOG_LEVEL=info)', () => {
  let database: TestDatabase;
  let store: TestStore;
  let server: ServerProcess;
  let token: string;

  before(async () => {
    database = await createTestDatabase('sqlite');
    store = createTestStore('memory');
    server = await startServerProcess({ database, store, env: { LOG_LEVEL: 'info', RATE_LIMIT_MAX: '1000' } });
    const client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
    token = await getToken(server.url, client);
  });
  after(async () => {
    await server?.stop();
    await store?.store.close();
    await database?.drop();
  });

  /** The log lines (parsed) whose request ID is the one of the answer. */
  async function linesOf(res: Response): Promise<any[]> {
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id');
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the child flush its log
    return server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.requestId === id);
  }

  const incoming = (lines: any[]) => {
    const entry = lines.find((l) => l.msg === 'incoming request');
    assert.ok(entry, `an incoming request line: ${JSON.stringify(lines)}`);
    return entry.req;
  };

  test('secrets in query strings appear nowhere in the log: /v1, the console, the token endpoint, unknown paths', async () => {
    const requests: Array<[string, RequestInit?]> = [
      [`/v1/frameworks?access_token=${SECRET}`, { headers: { authorization: `Bearer ${token}` } }],
      [`/v1/frameworks?access_token=${SECRET}`],
      [`/console/api/session?session=${SECRET}`],
      [`/console/api/session?cds_console=${SECRET}`, { method: 'DELETE' }],
      [`/oauth/token?client_secret=${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      [`/no/such/path?password=${SECRET}&token=${SECRET}`],
      [`/v1/vulnerabilities?count=50&token=${encodeURIComponent(SECRET)}`, { headers: { authorization: `Bearer ${token}` } }],
    ];
    for (const [path, init] of requests) {
      const lines = await linesOf(await fetch(`${server.url}${path}`, init));
      assert.ok(lines.length > 0, `${path}: the request was logged`);
    }
    const log = server.stdout() + server.stderr();
    assert.equal(log.split(SECRET).length - 1, 0, 'the secret occurs nowhere in the log');
  });

  test('the incoming request line names the route pattern and the query with undeclared values redacted', async () => {
    const req = incoming(
      await linesOf(
        await fetch(`${server.url}/v1/vulnerabilities/api%23VUL-0001?fields=customFields&access_token=${SECRET}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    assert.equal(req.method, 'GET');
    assert.equal(req.url, '/v1/vulnerabilities/:vulnerabilityId');
    assert.equal(req.query, 'fields=customFields&access_token=[redacted]');
    assert.equal(req.remoteAddress, '127.0.0.1');

    const list = incoming(
      await linesOf(
        await fetch(`${server.url}/v1/vulnerabilities?count=50&nextCursor=abc&session=${SECRET}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    assert.equal(list.url, '/v1/vulnerabilities');
    assert.equal(list.query, 'count=50&nextCursor=abc&session=[redacted]');

    const unknown = incoming(await linesOf(await fetch(`${server.url}/v2/things?q=1`)));
    assert.equal(unknown.url, '/v2/things', 'without a route: the path');
    assert.equal(unknown.query, 'q=[redacted]', 'without a route, no parameter is declared');

    // (/healthz logs at debug only, so a route that logs at info)
    const plain = incoming(await linesOf(await fetch(`${server.url}/openapi.json`)));
    assert.equal(plain.url, '/openapi.json');
    assert.equal(plain.query, undefined);
  });

  test('a warm read answered before routing is logged as Fastify logs it: both lines, the same fields', async () => {
    assert.ok(server.opsUrl, 'the test server has an operations listener');
    const early = async () => {
      const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
      return Number(/^cds_warm_reads_total (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    const get = () => fetch(`${server.url}/v1/frameworks?fields=addedOn`, { headers: { authorization: `Bearer ${token}` } });
    const first = await linesOf(await get()); // Fastify's answer: the URL is held from now on
    const before = await early();
    const second = await linesOf(await get());
    assert.equal((await early()) - before, 1, 'the second was answered before routing');
    const shape = (lines: any[]) =>
      lines
        .map((line) => ({ ...line, time: typeof line.time, requestId: typeof line.requestId }))
        .map(({ level, msg, req, res, responseTime, ...rest }) => ({
          rest,
          level,
          msg,
          req: req && { ...req, remotePort: typeof req.remotePort },
          res,
          responseTime: typeof responseTime,
        }));
    assert.deepEqual(shape(second), shape(first));
    assert.deepEqual(
      second.map((l) => l.msg),
      ['incoming request', 'request completed'],
    );
    assert.equal(incoming(second).url, '/v1/frameworks');
    assert.equal(incoming(second).query, 'fields=addedOn');
    assert.equal(second.find((l) => l.msg === 'request completed').res.statusCode, 200);
  });

  test('long paths, names, values and many parameters are clipped', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `p${i}=${i}`).join('&');
    const req = incoming(await linesOf(await fetch(`${server.url}/${'x'.repeat(2000)}?${'n'.repeat(500)}=1&${many}`)));
    assert.ok(req.url.length <= 257, `path clipped: ${req.url.length}`);
    const params = req.query.split('&');
    assert.equal(params.length, 21, 'at most 20 parameters, then an ellipsis');
    assert.equal(params[20], '…');
    assert.ok(params[0].length <= 64 + 1 + '=[redacted]'.length);
  });
});
