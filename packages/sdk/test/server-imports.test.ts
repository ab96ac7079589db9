// Scanner imports through the SDK against the real service on every engine: a file from a path,
// bytes, a one-shot stream and a stream factory; what a re-import does (unchanged, closed,
// reopened) as the list and the feed then show it; replays under one Idempotency-Key; refusals
// that name the field; a large file streamed in small chunks, and one past the limit refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  ConflictError,
  PermissionDeniedError,
  ValidationError,
  type ComplianceClient,
  type FetchLike,
  type ScannerFormat,
} from '../src/index.ts';
import { resultAt, sarif } from '../../../test/harness/vulnerability-imports.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

/** The service's limit in these tests: small, so a refused file is quick to write. */
const LIMIT = 2_000_000;

const fieldsOf = (err: unknown) =>
  err instanceof ValidationError ? err.details.flatMap((d) => ('field' in d ? [d.field] : [])) : [`not a ValidationError: ${err}`];

/** A CycloneDX BOM with one vulnerable component (the shape of its specification). */
function cyclonedx(cve: string): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { component: { 'bom-ref': 'app', type: 'application', name: 'shop-api', version: '2.0.0' } },
    components: [
      { 'bom-ref': 'pkg:npm/lodash@4.17.20', type: 'library', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' },
    ],
    vulnerabilities: [
      {
        id: cve,
        source: { name: 'NVD' },
        ratings: [{ score: 7.2, severity: 'high', method: 'CVSSv31' }],
        description: 'Command injection in template.',
        recommendation: 'Upgrade lodash to 4.17.21',
        affects: [{ ref: 'pkg:npm/lodash@4.17.20' }],
      },
    ],
  });
}

for (const dialect of dialects) {
  describe(`SDK scanner imports against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;
    let dir: string;

    before(async () => {
      svc = await startDemoService(dialect, { IMPORT_MAX_BYTES: String(LIMIT) });
      sdk = svc.readWrite;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-imports-'));
    });
    after(async () => {
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a SARIF file from a path: the answer counts the findings, the list and the feed show them', async () => {
      const file = path.join(dir, 'codeql.sarif');
      fs.writeFileSync(file, sarif([resultAt('src/db.js', 42), resultAt('src/db.js', 57)]));
      const res = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'github.com/acme/shop', file });
      assert.equal(res.response.status, 200);
      assert.equal(res.response.idempotentReplayed, false);
      assert.match(res.response.idempotencyKey ?? '', /^[0-9a-f-]{36}$/, 'a key was generated for the call');
      const { findingIds, ...counts } = res.data;
      assert.deepEqual(counts, {
        format: 'sarif',
        scope: 'github.com/acme/shop',
        source: 'github',
        created: 2,
        updated: 0,
        closed: 0,
        reopened: 0,
        unchanged: 0,
      });
      assert.equal(findingIds.length, 2);

      const listed = await sdk.vulnerabilities.list({ source: ['github'], status: ['open'] }).toArray({ limit: 10_000 });
      for (const id of findingIds) {
        const finding = listed.find((v) => v.vulnerabilityId === id);
        assert.ok(finding, `${id} is on the list`);
        assert.equal(finding.title, 'Database query built from user-controlled sources');
        assert.equal(finding.severity, 'high');
      }
      const events = await sdk.events.list({ types: ['vulnerability.created'] }).toArray({ limit: 10_000 });
      assert.deepEqual(
        events
          .map((e) => e.resourceId)
          .filter((id) => findingIds.includes(id))
          .sort(),
        [...findingIds].sort(),
        'one created event per finding',
      );
    });

    test('re-import from bytes, a one-shot stream and a stream factory: unchanged, closed, reopened', async () => {
      const a = resultAt('src/a.js', 1);
      const b = resultAt('src/b.js', 2);
      const both = sarif([a, b]);
      const first = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'reimport', file: Buffer.from(both) });
      assert.equal(first.data.created, 2);
      const [idA, idB] = first.data.findingIds;

      const same = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'reimport', file: new TextEncoder().encode(both) });
      assert.deepEqual([same.data.created, same.data.unchanged, same.data.findingIds], [0, 2, []]);

      const onlyA = Readable.from([Buffer.from(sarif([a]))]);
      const gone = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'reimport', file: onlyA });
      assert.deepEqual([gone.data.closed, gone.data.unchanged, gone.data.findingIds], [1, 1, [idB]]);
      assert.equal((await sdk.vulnerabilities.get(idB)).data.status, 'closed');

      const back = await sdk.vulnerabilities.import({
        format: 'sarif',
        scope: 'reimport',
        file: () => Readable.toWeb(Readable.from([Buffer.from(both)])) as ReadableStream<Uint8Array>,
      });
      assert.deepEqual([back.data.reopened, back.data.unchanged, back.data.findingIds], [1, 1, [idB]]);
      assert.equal((await sdk.vulnerabilities.get(idB)).data.status, 'open');
      assert.equal((await sdk.vulnerabilities.get(idA)).data.status, 'open');
    });

    test('another format: a CycloneDX BOM from a Blob, source import, the scope from the request', async () => {
      const res = await sdk.vulnerabilities.import({
        format: 'cyclonedx',
        scope: 'shop-api:2.0.0',
        file: new Blob([cyclonedx('CVE-2021-23337')]),
      });
      assert.deepEqual([res.data.format, res.data.source, res.data.scope, res.data.created], ['cyclonedx', 'import', 'shop-api:2.0.0', 1]);
      const finding = (await sdk.vulnerabilities.get(res.data.findingIds[0])).data;
      assert.equal(finding.cveId, 'CVE-2021-23337');
      assert.equal(finding.source, 'import');
    });

    test('the same key and file replay the first answer; another file under that key is refused', async () => {
      const file = path.join(dir, 'replayed.sarif');
      fs.writeFileSync(file, sarif([resultAt('src/replay.js', 3)]));
      const first = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'replay', file }, { idempotencyKey: 'import-replay-1' });
      const again = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'replay', file }, { idempotencyKey: 'import-replay-1' });
      assert.equal(first.response.idempotentReplayed, false);
      assert.equal(again.response.idempotentReplayed, true);
      assert.deepEqual(again.data, first.data);
      assert.equal(again.data.created, 1, 'the replay is the first answer, not a re-import (which would say unchanged)');
      fs.writeFileSync(file, sarif([resultAt('src/replay.js', 4)]));
      await assert.rejects(
        sdk.vulnerabilities.import({ format: 'sarif', scope: 'replay', file }, { idempotencyKey: 'import-replay-1' }),
        (err: unknown) => err instanceof ConflictError && err.code === 'idempotency_key_reused',
      );
    });

    test('refusals name the field: an unknown format, a file of another format, a malformed file; read-only is forbidden', async () => {
      const file = new TextEncoder().encode(sarif([resultAt('src/x.js', 1)]));
      const before = (await sdk.vulnerabilities.listPage({ count: 50 })).meta.totalCount;
      await assert.rejects(sdk.vulnerabilities.import({ format: 'nessus' as ScannerFormat, file }), (err: unknown) => {
        assert.deepEqual(fieldsOf(err), ['format']);
        assert.match((err as ValidationError).details.map((d) => ('message' in d ? d.message : '')).join(), /sarif/);
        return true;
      });
      await assert.rejects(sdk.vulnerabilities.import({ format: 'trivy', file }), (err: unknown) => {
        const [field] = fieldsOf(err);
        assert.match(field, /^\/|^file$|^body$/, `names a place in the file: ${field}`);
        return true;
      });
      await assert.rejects(
        sdk.vulnerabilities.import({ format: 'sarif', file: Buffer.from('{"version":"2.1.0","runs":[{') }),
        ValidationError,
      );
      await assert.rejects(svc.readOnly.vulnerabilities.import({ format: 'sarif', file }), PermissionDeniedError);
      assert.equal((await sdk.vulnerabilities.listPage({ count: 50 })).meta.totalCount, before, 'nothing was written');
      await assert.rejects(sdk.vulnerabilities.import({ format: 'sarif', file: '{"runs":[]}' }), /file is a path/);
    });

    test('a large file from a path goes out in small chunks; one past the limit is refused while it streams', async () => {
      const results = Array.from({ length: 4000 }, (_, i) => resultAt(`src/gen/file-${i}.js`, i + 1));
      const big = path.join(dir, 'large.sarif');
      fs.writeFileSync(big, sarif(results));
      const size = fs.statSync(big).size;
      assert.ok(size > 512 * 1024 && size < LIMIT, `the file is ${size} bytes`);
      let streamed = false;
      let largestChunk = 0;
      let bytes = 0;
      const watchingFetch: FetchLike = (input, init) => {
        if (init.body instanceof ReadableStream) {
          streamed = true;
          const watch = new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              largestChunk = Math.max(largestChunk, chunk.byteLength);
              bytes += chunk.byteLength;
              controller.enqueue(chunk);
            },
          });
          init = { ...init, body: (init.body as ReadableStream<Uint8Array>).pipeThrough(watch) };
        }
        return fetch(input, init);
      };
      const res = await svc.clientWith({ fetch: watchingFetch }).vulnerabilities.import({ format: 'sarif', scope: 'large', file: big });
      assert.equal(res.data.created, 4000);
      assert.ok(streamed, 'the body was a stream');
      assert.equal(bytes, size);
      assert.ok(largestChunk <= 64 * 1024, `largest chunk ${largestChunk} bytes`);

      const tooBig = path.join(dir, 'too-large.sarif');
      fs.writeFileSync(tooBig, sarif(Array.from({ length: 12_000 }, (_, i) => resultAt(`src/over/file-${i}.js`, i + 1))));
      assert.ok(fs.statSync(tooBig).size > LIMIT);
      const before = (await sdk.vulnerabilities.listPage({ count: 50 })).meta.totalCount;
      await assert.rejects(sdk.vulnerabilities.import({ format: 'sarif', scope: 'too-large', file: tooBig }), (err: unknown) => {
        assert.deepEqual(fieldsOf(err), ['file']);
        return true;
      });
      assert.equal((await sdk.vulnerabilities.listPage({ count: 50 })).meta.totalCount, before, 'nothing was written');
    });

    // issue 35: the refused body was left on the client's reused connection and the next call waited
    test('a file refused at its first token, then an accepted one: both answered on the reused connection', {
      timeout: 20_000,
    }, async () => {
      const refused = await sdk.vulnerabilities.import({ format: 'sarif', file: Buffer.from(`x${' '.repeat(LIMIT / 2)}`) }).catch((e) => e);
      assert.deepEqual(fieldsOf(refused), ['']);
      const accepted = await sdk.vulnerabilities.import({
        format: 'sarif',
        scope: 'keep-alive',
        file: Buffer.from(sarif([resultAt('src/k.js', 1)])),
      });
      assert.equal(accepted.response.status, 200);
      assert.equal(accepted.data.created, 1);
    });
  });
}
