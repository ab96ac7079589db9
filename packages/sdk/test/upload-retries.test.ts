// The attachment upload against a scripted server: the multipart body it writes, and what a
// retry resends. Paths, bytes, Blobs and stream factories are resent byte for byte under the
// same Idempotency-Key; a one-shot stream that has been read is not, and its failure is thrown.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { ComplianceClient, ConnectionError, ServiceUnavailableError } from '../src/index.ts';
import { drop, fastRetries, ok, startScriptedServer, v1Error, type Recorded, type ScriptedServer } from './support/scripted-server.ts';

const result = { evidenceId: 'ev-1', modifiedOn: 1_700_000_000_000 };
const DATE = Date.UTC(2026, 0, 10);

interface ParsedPart {
  name: string;
  filename?: string;
  contentType?: string;
  value: string;
}

/** Reads a recorded multipart body with busboy, the parser the server uses. */
async function parseMultipart(r: Recorded): Promise<ParsedPart[]> {
  const parts: ParsedPart[] = [];
  const parser = busboy({ headers: r.headers, defParamCharset: 'utf8' });
  parser.on('field', (name, value) => parts.push({ name, value }));
  parser.on('file', (name, stream, info) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () =>
      parts.push({ name, filename: info.filename, contentType: info.mimeType, value: Buffer.concat(chunks).toString('latin1') }),
    );
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  parser.end(r.body);
  await done;
  return parts;
}

describe('attachment upload: body and retries (scripted server)', () => {
  let server: ScriptedServer;
  let dir: string;
  const client = () => new ComplianceClient({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', ...fastRetries });

  before(async () => {
    server = await startScriptedServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-upload-'));
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => server.reset());

  test('writes evidenceDate, note and every file as multipart parts', async () => {
    const file = path.join(dir, 'access review.csv');
    fs.writeFileSync(file, 'user,role\nada,admin\n');
    server.script(ok(result, 201));
    const res = await client().evidence.uploadAttachments(
      'ev-1',
      {
        evidenceDate: new Date(DATE),
        note: 'Q1 "access" review',
        files: [
          { path: file },
          { data: new TextEncoder().encode('{"a":1}'), filename: 'résumé.json', contentType: 'application/json' },
          { data: new Blob(['blob text']), filename: 'notes.txt' },
          {
            stream: Readable.toWeb(Readable.from([Buffer.from('streamed '), Buffer.from('log')])) as ReadableStream<Uint8Array>,
            filename: 'run.log',
          },
        ],
      },
      { idempotencyKey: 'upload-1' },
    );
    assert.deepEqual(res.data, result);
    assert.equal(res.response.status, 201);
    const r = server.requests[0];
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/evidence/ev-1/attachments');
    assert.equal(r.headers['idempotency-key'], 'upload-1');
    assert.match(r.headers['content-type'] ?? '', /^multipart\/form-data; boundary=cds-sdk-[0-9a-f]{32}$/);
    assert.equal(r.headers['transfer-encoding'], 'chunked', 'a body with a path or a stream is streamed');
    const parts = await parseMultipart(r);
    assert.deepEqual(parts, [
      { name: 'evidenceDate', value: String(DATE) },
      { name: 'note', value: 'Q1 "access" review' },
      { name: 'files', filename: 'access review.csv', contentType: 'application/octet-stream', value: 'user,role\nada,admin\n' },
      { name: 'files', filename: 'résumé.json', contentType: 'application/json', value: '{"a":1}' },
      { name: 'files', filename: 'notes.txt', contentType: 'application/octet-stream', value: 'blob text' },
      { name: 'files', filename: 'run.log', contentType: 'application/octet-stream', value: 'streamed log' },
    ]);
  });

  test('bytes and Blobs only: one Blob body with a Content-Length', async () => {
    server.script(ok(result, 201));
    await client().evidence.uploadAttachments('ev-1', {
      evidenceDate: DATE,
      files: [{ data: new Uint8Array([1, 2, 3]), filename: 'a.zip' }],
    });
    const r = server.requests[0];
    assert.equal(r.headers['transfer-encoding'], undefined);
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.equal((await parseMultipart(r)).length, 2);
  });

  test('a path, bytes and a stream factory are resent byte for byte, with the same key', async () => {
    const file = path.join(dir, 'big.txt');
    fs.writeFileSync(file, Buffer.alloc(300_000, 'x'));
    let factoryCalls = 0;
    server.script(v1Error(503, 'upstream_unavailable'), drop, v1Error(500, 'internal_error'), ok(result, 201));
    const res = await client().evidence.uploadAttachments('ev-1', {
      evidenceDate: DATE,
      files: [
        { path: file },
        { data: Buffer.from('bytes'), filename: 'b.txt' },
        {
          stream: () => {
            factoryCalls++;
            return Readable.from([Buffer.from('made '), Buffer.from('again')]);
          },
          filename: 'c.txt',
        },
      ],
    });
    assert.equal(res.response.attempts, 4);
    assert.equal(factoryCalls, 4);
    assert.equal(server.requests.length, 4);
    const first = server.requests[0];
    for (const r of server.requests) {
      assert.equal(r.headers['idempotency-key'], first.headers['idempotency-key']);
      assert.equal(r.headers['content-type'], first.headers['content-type']);
      assert.ok(r.body.equals(first.body), 'the same bytes on every attempt');
    }
    assert.equal((await parseMultipart(first)).find((p) => p.filename === 'big.txt')?.value.length, 300_000);
  });

  test('a one-shot stream is not resent once read: the error is thrown', async () => {
    server.script(v1Error(503, 'upstream_unavailable'), ok(result, 201));
    const stream = Readable.toWeb(Readable.from([Buffer.from('once')])) as ReadableStream<Uint8Array>;
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', { evidenceDate: DATE, files: [{ stream, filename: 'once.txt' }] }),
      ServiceUnavailableError,
    );
    assert.equal(server.requests.length, 1);
  });

  test('a stream that fails mid-body rejects with its own error, without a retry', async () => {
    async function* failing() {
      yield new TextEncoder().encode('part of it');
      throw new Error('disk went away');
    }
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', { evidenceDate: DATE, files: [{ stream: () => failing(), filename: 'x.txt' }] }),
      /disk went away/,
    );
    assert.ok(server.requests.length <= 1);
  });

  test('a missing path fails before anything is sent; a dropped one-shot upload is a ConnectionError', async () => {
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', { evidenceDate: DATE, files: [{ path: path.join(dir, 'missing.txt') }] }),
      (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
    );
    assert.equal(server.requests.length, 0);
    server.script(drop);
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', {
        evidenceDate: DATE,
        files: [{ stream: Readable.from([Buffer.from('x')]), filename: 'x.txt' }],
      }),
      ConnectionError,
    );
  });

  test('input checks: at least one file, a whole-number evidenceDate', async () => {
    await assert.rejects(client().evidence.uploadAttachments('ev-1', { evidenceDate: DATE, files: [] }), TypeError);
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', { evidenceDate: 1.5, files: [{ data: new Uint8Array(1), filename: 'a.txt' }] }),
      TypeError,
    );
    await assert.rejects(
      client().evidence.uploadAttachments('ev-1', { evidenceDate: new Date(NaN), files: [{ data: new Uint8Array(1), filename: 'a.txt' }] }),
      TypeError,
    );
    assert.equal(server.requests.length, 0);
  });
});
