// Writes through the CLI on each engine: creating a finding (flags, a JSON file on stdin) and
// reading it back, updating it (custom fields by title and by ID), idempotent replays and a
// reused key (exit 7), a Read Only credential writing (exit 5), an invalid finding (exit 6), and
// uploading two evidence files from paths with a progress bar, then listing the attachments.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));

describe('compliance writes', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    // The engines run side by side; within one, the steps share a credential and its rate limit, so one at a time
    // (node:test would otherwise give them the parent's concurrency).
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let rw: (args: string[], input?: string) => Promise<CliResult>;
      before(async () => {
        s = await startCliService(dialect);
        rw = (args, input) => s.cli(args, { client: s.readWrite, input });
      });
      after(async () => {
        await s?.close();
      });

      it('vulnerabilities create from flags, then get shows the finding', async () => {
        const res = await rw([
          'vulnerabilities',
          'create',
          '--vulnerability-id',
          'VUL-9042',
          '--title',
          'Outdated TLS on the edge proxy',
          '--severity',
          'high',
          '--status',
          'open',
          '--fix-available',
          'yes',
          '--first-seen',
          '2025-11-02',
          '--description',
          'TLS 1.0 is still accepted.',
          '--affected-resource',
          '{"name":"edge-proxy-1","type":"vm","tags":["prod"]}',
          '--idempotency-key',
          `create-vul-9042-${dialect}`,
        ]);
        const created = json(res);
        assert.equal(created.vulnerabilityId, 'api%23VUL-9042');
        assert.equal(created.source, 'api');
        assert.match(res.stderr, /created api%23VUL-9042/);
        const got = json(await s.cli(['vulnerabilities', 'get', 'api%23VUL-9042', '--fields', 'affectedResources']));
        assert.equal(got.title, 'Outdated TLS on the edge proxy');
        assert.equal(got.severity, 'high');
        assert.equal(got.firstSeen, Date.UTC(2025, 10, 2));
        assert.equal(got.description, 'TLS 1.0 is still accepted.');
        assert.deepEqual(
          got.affectedResources.map((r: { name: string }) => r.name),
          ['edge-proxy-1'],
        );
      });

      it('vulnerabilities create from a JSON file on stdin; flags override its fields', async () => {
        const body = {
          vulnerabilityId: 'CVE-2025-12345',
          title: 'From a file',
          severity: 'low',
          status: 'acknowledged',
          remediation: 'Upgrade.',
        };
        const created = json(await rw(['vulnerabilities', 'create', '--file', '-', '--severity', 'medium'], JSON.stringify(body)));
        assert.equal(created.vulnerabilityId, 'api%23CVE-2025-12345');
        assert.equal(created.cveId, 'CVE-2025-12345');
        assert.equal(created.severity, 'medium');
        assert.equal(created.status, 'acknowledged');
        assert.equal(created.remediation, 'Upgrade.');
      });

      it('the same key and body replays the answer; the same key with another body exits 7 and prints the key', async () => {
        const args = [
          'vulnerabilities',
          'create',
          '--vulnerability-id',
          'VUL-7001',
          '--title',
          'Replay me',
          '--severity',
          'low',
          '--status',
          'open',
        ];
        const key = `replay-${dialect}-${Date.now()}`;
        const first = json(await rw([...args, '--idempotency-key', key]));
        const again = await rw([...args, '--idempotency-key', key]);
        assert.deepEqual(json(again), first);
        assert.match(again.stderr, /answered from the stored response of an earlier request/);
        const reused = await rw([
          'vulnerabilities',
          'create',
          '--vulnerability-id',
          'VUL-7002',
          '--title',
          'Another',
          '--severity',
          'low',
          '--status',
          'open',
          '--idempotency-key',
          key,
        ]);
        assert.equal(reused.code, 7, explain(reused));
        assert.match(reused.stderr, /idempotency_key_reused: /);
        assert.match(reused.stderr, new RegExp(`idempotency key: ${key}`));
        assert.equal(reused.stdout, '');
      });

      it('vulnerabilities update: report link, assignee, custom fields by title and by ID; get shows them', async () => {
        const before = (await s.sdk.vulnerabilities.get('api%23VUL-9042')).data;
        const [impact, team] = before.customFields.filter((f) => f.fieldType === 'dropdown');
        const notes = before.customFields.find((f) => f.fieldType === 'text_box')!;
        const assignee = (await s.sdk.controls.list()).data.find((c) => c.assignees.length > 0)!.assignees[0];
        const res = await rw([
          'vulnerabilities',
          'update',
          'api%23VUL-9042',
          '--report-link',
          'https://reports.example.com/VUL-9042',
          '--assignee-email',
          assignee.email,
          '--custom-field',
          `${impact.title.toUpperCase()}=${impact.options[0]}`,
          '--custom-field',
          `${team.customFieldId}=${team.options[1]}`,
          '--custom-field',
          `${notes.title}=Patched on the 3rd; value with = sign`,
        ]);
        assert.match(res.stderr, /updated api%23VUL-9042/);
        const got = json(await s.cli(['vulnerabilities', 'get', 'api%23VUL-9042']));
        assert.equal(got.reportLink, 'https://reports.example.com/VUL-9042');
        assert.deepEqual(
          got.assignees.map((a: { email: string }) => a.email),
          [assignee.email],
        );
        const value = (id: string) => got.customFields.find((f: { customFieldId: string }) => f.customFieldId === id).fieldValue;
        assert.equal(value(impact.customFieldId), impact.options[0]);
        assert.equal(value(team.customFieldId), team.options[1]);
        assert.equal(value(notes.customFieldId), 'Patched on the 3rd; value with = sign');

        const [unknownField, nothing, clear] = await Promise.all([
          rw(['vulnerabilities', 'update', 'api%23VUL-9042', '--custom-field', 'No such field=1']),
          rw(['vulnerabilities', 'update', 'api%23VUL-9042']),
          rw(['vulnerabilities', 'update', 'api%23VUL-9042', '--report-link', '']),
        ]);
        assert.equal(unknownField.code, 2, explain(unknownField));
        assert.match(unknownField.stderr, /no custom field "No such field"/);
        assert.equal(nothing.code, 2, explain(nothing));
        assert.equal(json(clear).reportLink, undefined);
      });

      it('exit 5 when a Read Only credential writes, 6 for an invalid finding, 4 for an unknown finding', async () => {
        const file = path.join(s.home, 'note.txt');
        fs.writeFileSync(file, 'x');
        const evidenceId = (await s.sdk.evidence.list()).data[0].evidenceId;
        const [create, update, upload, invalid, missing] = await Promise.all([
          s.cli(['vulnerabilities', 'create', '--vulnerability-id', 'VUL-7100', '--title', 'x', '--severity', 'low', '--status', 'open']),
          s.cli(['vulnerabilities', 'update', 'api%23VUL-9042', '--report-link', 'https://example.com/']),
          s.cli(['evidence', 'upload', evidenceId, '--file', file, '--evidence-date', 'now']),
          rw(['vulnerabilities', 'create', '--vulnerability-id', 'NOT-AN-ID', '--title', 'x', '--severity', 'low', '--status', 'ignored']),
          rw(['vulnerabilities', 'update', 'api%23VUL-0000', '--report-link', 'https://example.com/']),
        ]);
        for (const res of [create, update, upload]) {
          assert.equal(res.code, 5, explain(res));
          assert.match(res.stderr, /forbidden: /);
          assert.match(res.stderr, /idempotency key: /);
        }
        assert.equal(invalid.code, 6, explain(invalid));
        assert.match(invalid.stderr, /validation_failed: [^\n]*\n\s+vulnerabilityId: must look like VUL-1234 or CVE-2024-12345\n/);
        assert.match(invalid.stderr, /\n\s+status: must be open, [a-z_, ]+ or [a-z_]+\n/, 'the statuses allowed at creation, in words');
        assert.equal(missing.code, 4, explain(missing));
      });

      it('evidence upload of two files from paths, with progress on stderr; get --fields attachments lists them', async () => {
        const evidenceId = (await s.sdk.evidence.list({ status: ['not_uploaded'] })).data[0].evidenceId;
        const dir = fs.mkdtempSync(path.join(s.home, 'upload-'));
        const csv = path.join(dir, 'access-review.csv');
        const archive = path.join(dir, 'approvals.zip');
        fs.writeFileSync(csv, 'user,role\nada,admin\n');
        fs.writeFileSync(archive, Buffer.alloc(300 * 1024, 7));
        const res = await rw([
          'evidence',
          'upload',
          evidenceId,
          '--file',
          csv,
          '-f',
          archive,
          '--evidence-date',
          '2026-01-15',
          '--note',
          'Q4 access review',
          '--progress',
        ]);
        const result = json(res);
        assert.equal(result.evidenceId, evidenceId);
        assert.equal(typeof result.modifiedOn, 'number');
        assert.match(res.stderr, /upload \[#+\] 100% \(300\.\d KiB\/300\.\d KiB\)/);
        assert.match(res.stderr, /uploaded 2 files/);

        const record = json(await s.cli(['evidence', 'get', evidenceId, '--fields', 'attachments']));
        const names = record.attachments.map((a: { displayName: string }) => a.displayName);
        assert.ok(names.includes('access-review.csv') && names.includes('approvals.zip'), names.join(', '));
        const ours = record.attachments.filter((a: { displayName: string }) =>
          ['access-review.csv', 'approvals.zip'].includes(a.displayName),
        );
        for (const a of ours) {
          assert.equal(a.note, 'Q4 access review');
          assert.equal(a.evidenceDate, Date.UTC(2026, 0, 15));
        }

        const [noFile, noDate, tooMany, unknown] = await Promise.all([
          rw(['evidence', 'upload', evidenceId, '--file', path.join(dir, 'missing.csv'), '--evidence-date', 'now']),
          rw(['evidence', 'upload', evidenceId, '--file', csv]),
          rw(['evidence', 'upload', evidenceId, ...Array.from({ length: 6 }, () => ['--file', csv]).flat(), '--evidence-date', 'now']),
          rw(['evidence', 'upload', '00000000-0000-4000-8000-000000000000', '--file', csv, '--evidence-date', 'now']),
        ]);
        for (const r of [noFile, noDate, tooMany]) assert.equal(r.code, 2, explain(r));
        assert.match(noFile.stderr, /cannot read .*missing\.csv: ENOENT/);
        assert.equal(unknown.code, 4, explain(unknown));
      });
    });
  }
});
