// Every write through the SDK against the real service on every engine: creating and updating
// findings, replays under one Idempotency-Key, the write errors of the spec, and attachment
// uploads from paths, bytes, Blobs and streams (a large one streamed in small chunks).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
  type ComplianceClient,
  type FetchLike,
} from '../src/index.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

const hasField = (err: unknown, field: string) =>
  err instanceof ValidationError && err.details.some((d) => 'field' in d && d.field === field);

for (const dialect of dialects) {
  describe(`SDK writes against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;
    let dir: string;
    let personEmail: string;

    before(async () => {
      svc = await startDemoService(dialect);
      sdk = svc.readWrite;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-writes-'));
      personEmail = (await sdk.controls.list()).data.flatMap((c) => c.assignees)[0].email;
    });
    after(async () => {
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('create a finding: 201, source api, encoded ID, then readable with get', async () => {
      const created = await sdk.vulnerabilities.create({
        vulnerabilityId: 'VUL-9001',
        title: 'Outdated TLS on the edge proxy',
        severity: 'high',
        status: 'open',
        fixAvailable: 'yes',
        description: 'TLS 1.0 is still offered.',
        affectedResources: [{ name: 'edge-proxy-1', type: 'vm', tags: ['prod'] }],
        assigneeEmail: personEmail.toUpperCase(),
      });
      assert.equal(created.response.status, 201);
      assert.equal(created.response.idempotentReplayed, false);
      assert.equal(created.data.vulnerabilityId, 'api%23VUL-9001');
      assert.equal(created.data.source, 'api');
      assert.equal(created.data.cveId, '');
      assert.deepEqual(
        created.data.assignees.map((a) => a.email),
        [personEmail],
      );
      const read = await sdk.vulnerabilities.get(created.data.vulnerabilityId, { fields: ['affectedResources'] });
      assert.equal(read.data.title, 'Outdated TLS on the edge proxy');
      assert.deepEqual(
        read.data.affectedResources?.map((r) => [r.name, r.status]),
        [['edge-proxy-1', 'open']],
      );
    });

    test('the same key and body replay the stored answer; another body under that key is refused', async () => {
      const body = { vulnerabilityId: 'CVE-1999-10001', title: 'Replayed finding', severity: 'low', status: 'acknowledged' } as const;
      const first = await sdk.vulnerabilities.create(body, { idempotencyKey: 'create-cve-1999-10001' });
      const again = await sdk.vulnerabilities.create({ ...body }, { idempotencyKey: 'create-cve-1999-10001' });
      assert.equal(first.response.idempotentReplayed, false);
      assert.equal(again.response.idempotentReplayed, true);
      assert.equal(again.response.status, 201);
      assert.deepEqual(again.data, first.data);
      assert.notEqual(again.meta.requestId, first.meta.requestId);
      assert.equal(first.data.cveId, 'CVE-1999-10001');
      await assert.rejects(
        sdk.vulnerabilities.create({ ...body, title: 'Changed' }, { idempotencyKey: 'create-cve-1999-10001' }),
        (err: unknown) => {
          assert.ok(err instanceof ConflictError);
          assert.equal(err.status, 409);
          assert.equal(err.code, 'idempotency_key_reused');
          return true;
        },
      );
    });

    test('create errors: an existing key, an invalid body, a read-only credential', async () => {
      await assert.rejects(
        sdk.vulnerabilities.create({ vulnerabilityId: 'VUL-9001', title: 'Again', severity: 'low', status: 'open' }),
        (err: unknown) => hasField(err, 'vulnerabilityId'),
      );
      await assert.rejects(
        sdk.vulnerabilities.create({ vulnerabilityId: 'VUL-12', title: 'Bad key', severity: 'low', status: 'open' }),
        (err: unknown) => hasField(err, 'vulnerabilityId'),
      );
      await assert.rejects(
        sdk.vulnerabilities.create({ vulnerabilityId: 'VUL-9002', title: 'x', severity: 'low', status: 'ignored' as never }),
        ValidationError,
      );
      await assert.rejects(
        svc.readOnly.vulnerabilities.create({ vulnerabilityId: 'VUL-9003', title: 'x', severity: 'low', status: 'open' }),
        PermissionDeniedError,
      );
    });

    test('update: assignee, report link and custom fields; "" clears the link; unknown findings are not found', async () => {
      const id = 'api%23VUL-9001';
      const fields = (await sdk.vulnerabilities.get(id)).data.customFields;
      const text = fields.find((f) => f.fieldType === 'text_box');
      const dropdown = fields.find((f) => f.fieldType === 'dropdown' && f.options.length > 0);
      assert.ok(text && dropdown, 'the demo defines a text and a dropdown custom field');
      const updated = await sdk.vulnerabilities.update(id, {
        assigneeEmail: personEmail,
        reportLink: 'https://reports.example.com/VUL-9001',
        customFields: [
          { customFieldId: text.customFieldId, fieldValue: 'Owned by the platform team' },
          { id: dropdown.customFieldId, value: dropdown.options[0] },
        ],
      });
      assert.equal(updated.response.status, 200);
      assert.equal(updated.data.reportLink, 'https://reports.example.com/VUL-9001');
      assert.equal(typeof updated.data.modifiedOn, 'number');
      const values = Object.fromEntries(updated.data.customFields.map((f) => [f.customFieldId, f.fieldValue]));
      assert.equal(values[text.customFieldId], 'Owned by the platform team');
      assert.equal(values[dropdown.customFieldId], dropdown.options[0]);
      const cleared = await sdk.vulnerabilities.update('api#VUL-9001', { reportLink: '' });
      assert.equal(cleared.data.reportLink, undefined);
      await assert.rejects(sdk.vulnerabilities.update('api%23VUL-9999', { reportLink: '' }), NotFoundError);
      await assert.rejects(sdk.vulnerabilities.update(id, { reportLink: 'ftp://example.com/x' }), (err: unknown) =>
        hasField(err, 'reportLink'),
      );
    });

    test('upload from a path, bytes, a Blob and streams; the evidence then lists the attachments', async () => {
      const evidence = (await sdk.evidence.list({ status: ['not_uploaded'] })).data[0];
      assert.ok(evidence, 'the demo has evidence not uploaded yet');
      const csv = path.join(dir, 'access-review.csv');
      fs.writeFileSync(csv, 'user,role\nada,admin\n');
      const date = Date.now() - 86_400_000;
      const res = await sdk.evidence.uploadAttachments(evidence.evidenceId, {
        evidenceDate: date,
        note: 'Quarterly access review',
        files: [
          { path: csv },
          { data: new TextEncoder().encode('{"ok":true}'), filename: 'result.json' },
          { data: new Blob(['# Findings\n']), filename: 'findings.md' },
          {
            stream: Readable.toWeb(Readable.from([Buffer.from('line 1\n'), Buffer.from('line 2\n')])) as ReadableStream<Uint8Array>,
            filename: 'run.log',
          },
          { stream: () => Readable.from([Buffer.from('<a/>')]), filename: 'export.xml' },
        ],
      });
      assert.equal(res.response.status, 201);
      assert.equal(res.data.evidenceId, evidence.evidenceId);
      assert.equal(typeof res.data.modifiedOn, 'number');
      const after = await sdk.evidence.get(evidence.evidenceId, { fields: ['attachments'] });
      assert.ok(['uploaded', 'pending_approval'].includes(after.data.status));
      const names = after.data.attachments!.map((a) => a.displayName).sort();
      assert.deepEqual(names, ['access-review.csv', 'export.xml', 'findings.md', 'result.json', 'run.log']);
      for (const a of after.data.attachments!) {
        assert.equal(a.note, 'Quarterly access review');
        assert.equal(a.evidenceDate, date);
        assert.equal(a.url, undefined);
      }
    });

    test('an upload repeated under its key is replayed, not stored twice; changed files under that key are refused', async () => {
      const evidence = (await sdk.evidence.list({ status: ['not_uploaded'] })).data[0];
      const file = path.join(dir, 'approvals.txt');
      fs.writeFileSync(file, 'approved by ada');
      const input = { evidenceDate: Date.now() - 1000, files: [{ path: file }] };
      const first = await sdk.evidence.uploadAttachments(evidence.evidenceId, input, { idempotencyKey: 'upload-approvals-1' });
      const again = await sdk.evidence.uploadAttachments(evidence.evidenceId, input, { idempotencyKey: 'upload-approvals-1' });
      assert.equal(again.response.idempotentReplayed, true);
      assert.deepEqual(again.data, first.data);
      const stored = await sdk.evidence.get(evidence.evidenceId, { fields: ['attachments'] });
      assert.equal(stored.data.attachments!.length, 1);
      fs.writeFileSync(file, 'approved by bob');
      await assert.rejects(
        sdk.evidence.uploadAttachments(evidence.evidenceId, input, { idempotencyKey: 'upload-approvals-1' }),
        (err: unknown) => err instanceof ConflictError && err.code === 'idempotency_key_reused',
      );
    });

    test('upload refusals name the field: file type, a future date, an unknown evidence record', async () => {
      const evidence = (await sdk.evidence.list()).data[0];
      const bytes = new TextEncoder().encode('MZ');
      await assert.rejects(
        sdk.evidence.uploadAttachments(evidence.evidenceId, { evidenceDate: Date.now(), files: [{ data: bytes, filename: 'tool.exe' }] }),
        (err: unknown) => hasField(err, 'files'),
      );
      await assert.rejects(
        sdk.evidence.uploadAttachments(evidence.evidenceId, {
          evidenceDate: Date.now() + 86_400_000,
          files: [{ data: bytes, filename: 'a.txt' }],
        }),
        (err: unknown) => hasField(err, 'evidenceDate'),
      );
      await assert.rejects(
        sdk.evidence.uploadAttachments('00000000-0000-0000-0000-000000000000', {
          evidenceDate: Date.now(),
          files: [{ data: bytes, filename: 'a.txt' }],
        }),
        NotFoundError,
      );
      await assert.rejects(
        svc.readOnly.evidence.uploadAttachments(evidence.evidenceId, {
          evidenceDate: Date.now(),
          files: [{ data: bytes, filename: 'a.txt' }],
        }),
        PermissionDeniedError,
      );
    });

    test('a large file from a path goes out in small chunks, never whole', async () => {
      const big = path.join(dir, 'large-export.csv');
      const block = Buffer.alloc(1024 * 1024, 'a');
      const fd = fs.openSync(big, 'w');
      for (let i = 0; i < 24; i++) fs.writeSync(fd, block);
      fs.closeSync(fd);
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
      const evidence = (await sdk.evidence.list()).data[1];
      const res = await svc
        .clientWith({ fetch: watchingFetch })
        .evidence.uploadAttachments(evidence.evidenceId, { evidenceDate: Date.now(), files: [{ path: big }] });
      assert.equal(res.response.status, 201);
      assert.ok(streamed, 'the body was a stream');
      assert.ok(bytes > 24 * 1024 * 1024);
      assert.ok(largestChunk <= 64 * 1024, `largest chunk ${largestChunk} bytes`);

      // Refused after the first part: the service answers before reading the rest, and that answer is what is thrown.
      await assert.rejects(
        sdk.evidence.uploadAttachments(evidence.evidenceId, { evidenceDate: Date.now() + 86_400_000, files: [{ path: big }] }),
        (err: unknown) => hasField(err, 'evidenceDate'),
      );
      await assert.rejects(
        sdk.evidence.uploadAttachments(evidence.evidenceId, { evidenceDate: Date.now(), files: [{ path: big, filename: 'large.exe' }] }),
        (err: unknown) => hasField(err, 'files'),
      );
    });
  });
}
