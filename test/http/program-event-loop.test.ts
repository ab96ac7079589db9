// Program documents never hold the event loop (issue 36, item 3; docs/program-documents.md, "Over
// HTTP"), on every engine: a Read Only credential's PUT /v1/program is refused 403 before its body
// is read, and a Read & Write credential's large YAML document is parsed in a worker thread, while
// /healthz, asked over and over on the same server, keeps answering. On the code before, the
// parse of these ~4 MiB of YAML held the loop for 1.5-3 s on a 2-core machine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { dialects } from '../harness/engines.ts';
import { addCredential, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';

/** About `tests` × 10,000 flagged resources of YAML: ~1 MiB per test, written without the YAML library. */
function largeYaml(tests: number, tail = ''): Buffer {
  const parts = ['version: 1\ntests:\n'];
  for (let t = 0; t < tests; t++) {
    parts.push(`  - key: test-${t}\n    name: Test ${t}\n    resources:\n`);
    for (let i = 0; i < 10_000; i++) {
      parts.push(`      - resourceId: arn:aws:s3:::bucket-${t}-${i}\n        name: bucket ${t}-${i}\n        status: fix_required\n`);
    }
  }
  return Buffer.from(parts.join('') + tail);
}

/** PUT /v1/program over a socket of its own; the answer even when the server closes before reading the whole body. */
function put(url: string, token: string, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/v1/program?mode=plan`, {
      method: 'PUT',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml', 'content-length': body.length },
    });
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    // the server may close while the body is still being sent (it answered without reading it)
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * The slowest /healthz while `work` runs, asked one at a time 25 ms apart, each timed from when it
 * was due: the server runs in this process, so a held loop also delays the asking.
 */
async function slowestHealthz(url: string, work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.finally(() => (done = true)).catch(() => {});
  let slowest = 0;
  let due = performance.now();
  do {
    await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
    slowest = Math.max(slowest, performance.now() - due);
    due = performance.now() + 25;
    await new Promise((r) => setTimeout(r, 25));
  } while (!done);
  return slowest;
}

for (const dialect of dialects) {
  describe(`program documents off the event loop (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let writer: string;
    let reader: string;
    const yaml = largeYaml(4);

    before(async () => {
      server = await startServer({ dialect, env: { WORKER_THREADS: '1' } });
      const client = await createOrgWithCredential(server.system, { name: 'Loop Org', accessLevel: 'read_write' });
      writer = await getToken(server.url, client);
      reader = await getToken(server.url, await addCredential(server.system, client.organizationId, 'read_only'));
    });
    after(() => server?.close());

    test('a Read Only credential is refused 403 before its document is read; /healthz answers meanwhile', async () => {
      const started = performance.now();
      const answer = put(server.url, reader, yaml);
      const slowest = await slowestHealthz(server.url, answer);
      const res = await answer;
      const took = performance.now() - started;
      assert.equal(res.status, 403);
      const error = JSON.parse(res.body).error;
      assert.equal(error.code, 'forbidden');
      assert.match(error.message, /framework:write, control:write, .*vulnerability:write\); this credential holds none/);
      // the body was left unread: the connection is not kept for another request
      assert.equal(res.headers.connection, 'close');
      assert.ok(slowest < 200, `/healthz took ${slowest.toFixed(0)} ms`);
      assert.ok(took < 1000, `the 403 took ${took.toFixed(0)} ms`);
    });

    test('a large YAML document is parsed in a worker thread: /healthz answers meanwhile; problems keep their line', async () => {
      const lines = yaml.toString().split('\n').length;
      const answer = put(server.url, writer, Buffer.concat([yaml, Buffer.from('unknownKind: []\n')]));
      const slowest = await slowestHealthz(server.url, answer);
      const res = await answer;
      assert.equal(res.status, 400, res.body);
      const details = JSON.parse(res.body).error.details as Array<{ field: string; line?: number }>;
      const unknown = details.find((d) => d.field === '/unknownKind');
      assert.ok(unknown, res.body);
      assert.equal(unknown.line, lines);
      assert.ok(slowest < 500, `/healthz took ${slowest.toFixed(0)} ms`);
    });
  });
}
