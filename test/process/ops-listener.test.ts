// The operations listener: the real server process serves /metrics and detailed readiness on a
// separate port (OPS_HOST/OPS_PORT, loopback by default), as Prometheus exporters do; the API port
// keeps /healthz and a /readyz that says only up or not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api } from '../harness/server.ts';
import pkg from '../../package.json' with { type: 'json' };

async function withServer(env: Record<string, string>, run: (server: ServerProcess) => Promise<void>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-ops-'));
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ env: { DATA_DIR: dir, SQLITE_PATH: path.join(dir, 'cds.sqlite'), ...env } });
    await run(server);
    assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null }, server.stderr());
  } finally {
    await server?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('operations listener (OPS_PORT)', () => {
  it('serves /metrics and detailed /readyz on the ops port; the API port answers /metrics 404 and /readyz without details', async () => {
    await withServer({ OPS_PORT: '0' }, async (server) => {
      const opsUrl = server.opsUrl;
      assert.ok(opsUrl, `the server says where the ops listener is:\n${server.stdout()}`);
      assert.notEqual(opsUrl, server.url);

      // up, and which release: nothing of the dependencies
      assert.deepEqual((await api(server.url, '/healthz')).body, { status: 'ok', version: pkg.version });
      const ready = await api(server.url, '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ready' }, 'no dependency names on the API port');

      const onApi = await api(server.url, '/metrics');
      assert.equal(onApi.status, 404);
      assert.equal(onApi.body.error.code, 'not_found');
      const doc = (await api(server.url, '/openapi.json')).body;
      assert.equal(doc.paths['/metrics'], undefined, '/metrics leaves the API document');

      const metrics = await api(opsUrl, '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(metrics.body as string, /^# TYPE cds_http_requests_total counter$/m);
      // the ops listener counts the API's requests (the 404 above), not its own
      assert.match(metrics.body as string, /^cds_http_requests_total\{[^}]*status="404"[^}]*\} [1-9]/m);
      assert.doesNotMatch(metrics.body as string, /route="\/metrics"/);

      const detailed = await api(opsUrl, '/readyz');
      assert.equal(detailed.status, 200);
      assert.deepEqual(detailed.body, { status: 'ready', checks: { database: 'sqlite', rateLimitStore: 'memory' } });

      // nothing of the API on the ops port
      assert.equal((await api(opsUrl, '/v1/frameworks')).status, 404);
    });
  });

  it('OPS_PORT=off serves no ops listener; /metrics stays off the API port', async () => {
    await withServer({ OPS_PORT: 'off' }, async (server) => {
      assert.equal(server.opsUrl, undefined, server.stdout());
      assert.doesNotMatch(server.stdout(), /Operations listener at/);
      assert.equal((await api(server.url, '/metrics')).status, 404);
      assert.equal((await api(server.url, '/readyz')).status, 200);
    });
  });
});
