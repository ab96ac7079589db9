// A keep-alive client (one connection, reused) sending refused and accepted requests in turn to
// every route that streams its body (vulnerability imports, attachment uploads, PUT /v1/program),
// on every engine: each answer arrives within seconds, and the next request goes over the same
// connection, or over a new one after the server said `Connection: close` (issue 35, item 2).
// A refusal at the file's first token used to leave the rest of the body unread on the socket,
// and the connection's next request waited for the request time-out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { assertTurns, keepAliveClient, type KeepAliveClient, type KeepAliveRequest } from '../harness/keep-alive.ts';
import { resultAt, sarif } from '../harness/vulnerability-imports.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  date,
  env,
  file,
  type Harness,
  localDiskBlobs,
  makeHarness,
  MiB,
  multipartType,
  rawBody,
  stopLocalDiskUploads,
} from '../harness/uploads.ts';
import { addCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { unreadBodyDrainBytes } from '../../src/http/plugins/unread-body.ts';

/** Bodies well past what the socket buffers hold, under and over the drain bound. */
const UNDER_BOUND = 2 * MiB;
/** within the limits but large: the bound was once 64 MiB, and such a refusal reached clients as EPIPE */
const LARGE = 70 * MiB;
/** Not a JSON document: refused at its first token, the rest never read by the import. */
const notJson = (size: number) => `x${' '.repeat(size - 1)}`;
const NOW = Date.UTC(2026, 1, 10, 12);
const BOUNDARY = 'keepalive-boundary';
const DOCUMENT =
  'version: 1\nframeworks:\n  - key: soc2\n    name: SOC 2\n    requirements:\n      - key: cc1-1\n        code: CC1.1\n        name: Integrity\n';
let keys = 0;
const key = () => `keep-alive-${Date.now().toString(36)}-${++keys}`;

for (const dialect of dialects) {
  describe(`Keep-alive connections after early refusals (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;
    let client: KeepAliveClient;
    /** past the largest body any door of this server takes (with the defaults, an upload's 100 MB) */
    let OVER_BOUND: number;
    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-keep-alive-'));
      // a program limit of a few MiB: a document past it is quick to send
      server = await startServer({ dialect, env: { ...env, BLOB_DIR: blobDir, PROGRAM_MAX_BYTES: String(3 * MiB) }, now: () => NOW });
      h = await makeHarness(server, localDiskBlobs(blobDir));
      OVER_BOUND = unreadBodyDrainBytes(server.config) + 2 * MiB;
    });
    after(() => stopLocalDiskUploads(server, blobDir));

    /** Sends the requests in turn over one reused connection; every answer in time, the connection as the server said. */
    async function inTurn(steps: Array<[label: string, request: KeepAliveRequest]>) {
      client = keepAliveClient(server.url, h.token, 5_000);
      try {
        const answers = [];
        for (const [, request] of steps) answers.push(await client.send(request));
        return assertTurns(
          answers,
          steps.map(([label]) => label),
        );
      } finally {
        client.close();
      }
    }

    const importRaw = (body: string): KeepAliveRequest => ({
      method: 'POST',
      path: '/v1/vulnerabilities/imports?format=sarif&scope=keep-alive',
      headers: { 'content-type': 'application/json', 'idempotency-key': key() },
      body,
    });
    const list: KeepAliveRequest = { method: 'GET', path: '/v1/vulnerabilities?count=50' };
    const upload = (evidenceId: string, body: Buffer, chunked = false): KeepAliveRequest => ({
      method: 'POST',
      path: `/v1/evidence/${evidenceId}/attachments`,
      headers: { 'content-type': multipartType(BOUNDARY), 'idempotency-key': key() },
      body,
      chunked,
    });
    const putProgram = (body: string, options: { chunked?: boolean; query?: string } = {}): KeepAliveRequest => ({
      method: 'PUT',
      path: `/v1/program${options.query ?? ''}`,
      headers: { 'content-type': 'application/yaml', 'idempotency-key': key() },
      body,
      chunked: options.chunked,
    });

    test('imports: a file refused at its first token, then an accepted one, then a read, over one connection', async () => {
      const [refused, accepted, read] = await inTurn([
        ['refused import', importRaw(notJson(UNDER_BOUND))],
        ['accepted import', importRaw(sarif([resultAt('src/a.js', 1)]))],
        ['read', list],
      ]);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.details[0].field, '');
      assert.equal(refused.connectionHeader, 'keep-alive', 'a body within the drain bound is read and discarded');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.connection, 1, 'all three went over the first connection');
    });

    test('imports: a refused file past the drain bound is answered with Connection: close; the next request gets a new connection', async () => {
      const [refused, accepted, read] = await inTurn([
        ['refused import', importRaw(notJson(OVER_BOUND))],
        ['accepted import', importRaw(sarif([resultAt('src/b.js', 2)]))],
        ['read', list],
      ]);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.connectionHeader, 'close');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(read.status, 200);
    });

    test('imports: refused in turn with accepted ones, in the multipart form and for the credential', async () => {
      const form = (name: string, content: string) =>
        rawBody([{ kind: 'field', name: 'format', value: 'sarif' }, file('scan.json', content, name)], BOUNDARY);
      const multipart = (body: Buffer): KeepAliveRequest => ({
        method: 'POST',
        path: '/v1/vulnerabilities/imports',
        headers: { 'content-type': multipartType(BOUNDARY), 'idempotency-key': key() },
        body,
      });
      const [wrongPart, , firstToken, , badToken, accepted] = await inTurn([
        ['multipart, wrong part', multipart(form('nope', notJson(UNDER_BOUND)))],
        ['multipart, accepted', multipart(form('file', sarif([resultAt('src/c.js', 3)])))],
        ['multipart, first token', multipart(form('file', notJson(UNDER_BOUND)))],
        ['read', list],
        ['bad token', { ...importRaw(notJson(OVER_BOUND)), headers: { authorization: 'Bearer nope', 'content-type': 'application/json' } }],
        ['accepted import', importRaw(sarif([resultAt('src/d.js', 4)]))],
      ]);
      assert.equal(wrongPart.status, 400);
      assert.equal(firstToken.status, 400);
      assert.equal(badToken.status, 401);
      assert.equal(badToken.connectionHeader, 'close', 'an over-bound body refused before it was read is not read for nothing');
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    });

    test('uploads: refused ones (a wrong part, a refused file type, an unknown record) in turn with accepted ones', async () => {
      const evidenceId = await h.evidence();
      const body = (name: string, content: Buffer) => rawBody([date(NOW - 1000), file(name, content)], BOUNDARY);
      const [wrongPart, accepted, wrongType, again, unknown, last, pastBound, read, chunked, afterChunked] = await inTurn([
        ['wrong part', upload(evidenceId, rawBody([file('a.txt', Buffer.alloc(UNDER_BOUND, 'a'), 'other')], BOUNDARY))],
        ['accepted', upload(evidenceId, body('a.txt', Buffer.alloc(1000, 'a')))],
        ['refused type', upload(evidenceId, body('a.exe', Buffer.alloc(UNDER_BOUND, 'b')))],
        ['accepted again', upload(evidenceId, body('b.txt', Buffer.alloc(1000, 'c')))],
        ['unknown evidence', upload('ev-unknown', body('c.txt', Buffer.alloc(LARGE, 'd')))],
        ['accepted last', upload(evidenceId, body('c.txt', Buffer.alloc(1000, 'e')))],
        ['unknown evidence, past the bound', upload('ev-unknown', body('d.txt', Buffer.alloc(OVER_BOUND, 'f')))],
        ['read', list],
        // streamed with no length (as the SDK sends a file from a path): drained within the bound too
        ['unknown evidence, chunked', upload('ev-unknown', body('e.txt', Buffer.alloc(UNDER_BOUND, 'g')), true)],
        ['accepted after it', upload(evidenceId, body('f.txt', Buffer.alloc(1000, 'h')))],
      ]);
      assert.equal(wrongPart.status, 400, JSON.stringify(wrongPart.body));
      assert.equal(wrongType.status, 400, JSON.stringify(wrongType.body));
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.connectionHeader, 'keep-alive', 'a refused upload within the limits is read to its end, its answer kept');
      assert.equal(last.connection, unknown.connection, 'the next upload on the same connection');
      assert.equal(pastBound.status, 404, JSON.stringify(pastBound.body));
      assert.equal(pastBound.connectionHeader, 'close');
      assert.equal(read.status, 200);
      assert.equal(chunked.status, 404, JSON.stringify(chunked.body));
      assert.equal(chunked.connectionHeader, 'keep-alive', 'a refused chunked upload is read to its end, its answer kept');
      assert.equal(afterChunked.connection, chunked.connection, 'the next upload on the same connection');
      for (const ok of [accepted, again, last, afterChunked]) assert.equal(ok.status, 201, JSON.stringify(ok.body));
    });

    test('PUT /v1/program: documents refused early (too large, as declared or as streamed) in turn with accepted ones', async () => {
      const tooLarge = 'x'.repeat(server.config.program.maxBytes + 1);
      const [declared, planned, streamed, applied] = await inTurn([
        ['too large by Content-Length', putProgram(tooLarge)],
        ['planned', putProgram(DOCUMENT, { query: '?mode=plan' })],
        ['too large, chunked', putProgram(tooLarge, { chunked: true })],
        ['applied', putProgram(DOCUMENT)],
        ['read', list],
      ]);
      for (const refused of [declared, streamed]) {
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.error.details[0].field, 'body');
      }
      assert.equal(planned.status, 200, JSON.stringify(planned.body));
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
    });

    test('PUT /v1/program: a Read Only credential refused before its document is parsed, in turn with accepted ones', async () => {
      const readOnly = await getToken(server.url, await addCredential(server.system, h.client.organizationId, 'read_only'));
      const large = `# ${'x'.repeat(UNDER_BOUND)}\n${DOCUMENT}`;
      const [refused, planned, read] = await inTurn([
        ['read only', { ...putProgram(large), headers: { ...putProgram(large).headers, authorization: `Bearer ${readOnly}` } }],
        ['planned', putProgram(DOCUMENT, { query: '?mode=plan' })],
        ['read', list],
      ]);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'forbidden');
      assert.equal(refused.connectionHeader, 'keep-alive', 'the unparsed body is discarded within the drain bound');
      assert.equal(planned.status, 200, JSON.stringify(planned.body));
      assert.equal(read.connection, 1, 'all three went over the first connection');
    });
  });
}
