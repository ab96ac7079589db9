// `compliance tests import` as a child process against the real service on each engine (issue 38):
// a program whose tests name Prowler checks, applied with `program apply`; a Prowler OCSF report
// from a path (the human summary, the unmatched check named), the test then failing with its
// resources; the fixed report from standard input with --json (the test passes, its control is
// compliant); the same report again changes nothing; a file of another format exits 6 naming the
// place; no --format exits 2.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CHECK_SAMPLES, checkedProgramDocument, checkFixture } from '../../../test/harness/check-imports.ts';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

const PROGRAM = checkedProgramDocument(
  ['prowler:s3_bucket_default_encryption', 'prowler:s3_bucket_public_access'],
  // one test per other format, naming a check of its sample
  CHECK_SAMPLES.filter((s) => s.format !== 'ocsf').map((s) => ({
    key: `fmt_${s.format.replace('-', '_')}`,
    name: `Format ${s.format}`,
    checks: [s.check],
  })),
);

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));

describe('compliance tests import', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let dir: string;
      let rw: (args: string[], input?: string) => Promise<CliResult>;
      let testId: string;
      before(async () => {
        s = await startCliService(dialect, { demo: false });
        rw = (args, input) => s.cli(args, { client: s.readWrite, input });
        dir = fs.mkdtempSync(path.join(s.home, 'checks-'));
        fs.writeFileSync(path.join(dir, 'program.json'), JSON.stringify(PROGRAM));
        fs.writeFileSync(path.join(dir, 'prowler.ocsf.json'), checkFixture('prowler-ocsf.json'));
        ok(await rw(['program', 'apply', path.join(dir, 'program.json')]));
        const tests: Array<{ testId: string; testName: string }> = json(await s.cli(['tests', 'list', '-o', 'json']));
        testId = tests.find((t) => t.testName === 'S3 buckets are encrypted')!.testId;
      });
      after(async () => {
        await s?.close();
      });

      it('imports a Prowler report: a short summary naming the unmatched check; the test fails with its resources', async () => {
        const out = ok(await rw(['tests', 'import', '--format', 'ocsf', path.join(dir, 'prowler.ocsf.json'), '-o', 'table']));
        assert.match(out, /^imported ocsf \([\d.]+ (?:B|KiB)\) into scope aws:123456789012: 5 results, 4 of checks that tests name\n/);
        assert.match(out, /\ntests: 2 updated, 0 unchanged, 0 older, 0 ignored\n/);
        assert.match(out, /\nunmatched: 1 checks no test names \(1 results\): prowler:cloudtrail_multi_region_enabled \(1\)\n$/);
        const test = json(await s.cli(['tests', 'get', testId, '--resource-status', 'fix_required,passing', '-o', 'json']));
        assert.equal(test.status, 'fix_required');
        assert.deepEqual(test.checks, ['prowler:s3_bucket_default_encryption', 'prowler:s3_bucket_public_access']);
        assert.deepEqual(
          test.resources.map((r: { resourceId: string; status: string }) => [r.resourceId, r.status]),
          [
            ['arn:aws:s3:::logs', 'passing'],
            ['arn:aws:s3:::uploads', 'fix_required'],
          ],
        );
      });

      it('the fixed report from stdin with --json: the test passes; the same report again changes nothing', async () => {
        const answer = json(await rw(['tests', 'import', '--format', 'ocsf', '-', '--json'], checkFixture('prowler-ocsf-fixed.json')));
        assert.deepEqual(answer.tests, { updated: 1, unchanged: 1, older: 0, ignored: 0 });
        assert.deepEqual(answer.testIds, [testId]);
        const test = json(await s.cli(['tests', 'get', testId, '-o', 'json']));
        assert.equal(test.status, 'passing');
        const again = json(await rw(['tests', 'import', '--format', 'ocsf', '-', '--json'], checkFixture('prowler-ocsf-fixed.json')));
        assert.deepEqual(again.tests, { updated: 0, unchanged: 2, older: 0, ignored: 0 });
      });

      it('every other format: imported from a path, then re-imported from stdin changing nothing', async () => {
        for (const sample of CHECK_SAMPLES.filter((x) => x.format !== 'ocsf')) {
          const file = path.join(dir, sample.file);
          fs.writeFileSync(file, checkFixture(sample.file));
          const first = json(await rw(['tests', 'import', '--format', sample.format, file, '--json']));
          assert.equal(first.format, sample.format);
          assert.equal(first.tests.updated, 1, `${sample.format}: ${JSON.stringify(first)}`);
          const again = json(await rw(['tests', 'import', '--format', sample.format, '-', '--json'], checkFixture(sample.file)));
          assert.deepEqual(again.tests, { updated: 0, unchanged: 1, older: 0, ignored: 0 }, sample.format);
        }
      });

      it('refusals: another format exits 6 naming the place; no --format exits 2', async () => {
        const bad = await rw(['tests', 'import', '--format', 'ocsf', '-'], '{"results": {"passed_checks": []}}');
        assert.equal(bad.code, 6, explain(bad));
        assert.match(bad.stderr, /a list of findings\), found an object/);
        const usage = await rw(['tests', 'import', path.join(dir, 'prowler.ocsf.json')]);
        assert.equal(usage.code, 2, explain(usage));
        assert.match(usage.stderr, /--format is required: ocsf, policyreport, checkov, kube-bench, inspec/);
      });
    });
  }
});
