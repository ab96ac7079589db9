// The scanner import against a scripted server: the request it writes (the file as the raw body,
// format and scope in the query, JSON's content type, one Idempotency-Key) and what a retry
// resends. Paths, bytes and stream factories are resent byte for byte under the same key; a
// one-shot stream that has been read is not, and the failure is thrown.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ComplianceClient, ServiceUnavailableError } from '../src/index.ts';
import { drop, fastRetries, ok, startScriptedServer, v1Error, type ScriptedServer } from './support/scripted-server.ts';

const result = {
  format: 'trivy',
  scope: 'registry.example.com/shop:1.4',
  source: 'import',
  created: 1,
  updated: 0,
  closed: 0,
  reopened: 0,
  unchanged: 0,
  findingIds: ['import%23CVE-2024-0001'],
};

describe('scanner import: request and retries (scripted server)', () => {
  let server: ScriptedServer;
  let dir: string;
  const client = () => new ComplianceClient({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', ...fastRetries });

  before(async () => {
    server = await startScriptedServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-import-'));
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => server.reset());

  test('the file is the body as it is; format and scope go in the query; a key is generated per call', async () => {
    const file = path.join(dir, 'trivy.json');
    fs.writeFileSync(file, '{"SchemaVersion":2,"ArtifactName":"shop"}');
    server.script(ok(result), ok(result));
    const res = await client().vulnerabilities.import({ format: 'trivy', scope: 'registry.example.com/shop:1.4', file });
    await client().vulnerabilities.import({ format: 'trivy', file });
    assert.deepEqual(res.data, result);
    const [r, other] = server.requests;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/vulnerabilities/imports?format=trivy&scope=registry.example.com%2Fshop%3A1.4');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['transfer-encoding'], 'chunked', 'a path is streamed');
    assert.equal(r.body.toString(), '{"SchemaVersion":2,"ArtifactName":"shop"}');
    assert.match(String(r.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
    assert.equal(res.response.idempotencyKey, r.headers['idempotency-key']);
    assert.equal(other.path, '/v1/vulnerabilities/imports?format=trivy', 'no scope: none sent');
    assert.notEqual(other.headers['idempotency-key'], r.headers['idempotency-key'], 'each call its own key');
  });

  test('bytes go as one body with a Content-Length', async () => {
    server.script(ok(result));
    await client().vulnerabilities.import({ format: 'osv', file: Buffer.from('{"results":[]}') }, { idempotencyKey: 'osv-1' });
    const r = server.requests[0];
    assert.equal(r.headers['transfer-encoding'], undefined);
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.equal(r.body.toString(), '{"results":[]}');
    assert.equal(r.headers['idempotency-key'], 'osv-1');
  });

  test('a path, bytes and a stream factory are resent byte for byte with the same key', async () => {
    const file = path.join(dir, 'big.sarif');
    fs.writeFileSync(file, Buffer.alloc(300_000, 'x'));
    let factoryCalls = 0;
    const sources = [
      file,
      Buffer.alloc(300_000, 'x'),
      () => {
        factoryCalls++;
        return Readable.from([Buffer.alloc(100_000, 'x'), Buffer.alloc(200_000, 'x')]);
      },
    ];
    for (const source of sources) {
      server.reset();
      server.script(v1Error(503, 'upstream_unavailable'), drop, v1Error(500, 'internal_error'), ok(result));
      const res = await client().vulnerabilities.import({ format: 'sarif', file: source });
      assert.equal(res.response.attempts, 4);
      assert.equal(server.requests.length, 4);
      for (const r of server.requests) {
        assert.equal(r.headers['idempotency-key'], server.requests[0].headers['idempotency-key']);
        assert.equal(r.body.length, 300_000, 'the whole file on every attempt');
      }
    }
    assert.equal(factoryCalls, 4, 'a new stream per attempt');
  });

  test('a one-shot stream is not resent once read: the failure is thrown', async () => {
    server.script(v1Error(503, 'upstream_unavailable'), ok(result));
    await assert.rejects(
      client().vulnerabilities.import({ format: 'grype', file: Readable.from([Buffer.from('{"matches":[]}')]) }),
      ServiceUnavailableError,
    );
    assert.equal(server.requests.length, 1);
    server.reset();
    server.script(v1Error(503, 'upstream_unavailable'), ok(result));
    const web = Readable.toWeb(Readable.from([Buffer.from('{}')])) as ReadableStream<Uint8Array>;
    await assert.rejects(client().vulnerabilities.import({ format: 'openvex', file: web }), ServiceUnavailableError);
    assert.equal(server.requests.length, 1);
  });

  test('a stream that fails mid-file rejects with its own error, without a retry', async () => {
    async function* failing() {
      yield new TextEncoder().encode('{"runs":[');
      throw new Error('scanner output went away');
    }
    await assert.rejects(client().vulnerabilities.import({ format: 'sarif', file: () => failing() }), /scanner output went away/);
    assert.ok(server.requests.length <= 1);
  });

  test('input checks before anything is sent', async () => {
    await assert.rejects(client().vulnerabilities.import({ format: '' as 'sarif', file: Buffer.from('{}') }), TypeError);
    await assert.rejects(client().vulnerabilities.import({ format: 'sarif', file: 42 as never }), TypeError);
    await assert.rejects(client().vulnerabilities.import({ format: 'sarif', scope: 7 as never, file: Buffer.from('{}') }), TypeError);
    await assert.rejects(
      client().vulnerabilities.import({ format: 'sarif', file: path.join(dir, 'missing.sarif') }),
      (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
    );
    await assert.rejects(
      client().vulnerabilities.import({ format: 'sarif', file: '{"version":"2.1.0"}' }),
      (err: Error) => err instanceof TypeError && /pass the contents as bytes/.test(err.message),
    );
    await assert.rejects(
      client().vulnerabilities.import({ format: 'sarif', file: Buffer.from('{}') }, { idempotencyKey: 'bad key' }),
      TypeError,
    );
    assert.equal(server.requests.length, 0);
  });
});
