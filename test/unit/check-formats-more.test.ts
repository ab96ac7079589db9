// The other checkers' reports read as check results (issue 38): Kubernetes policy reports
// (wgpolicyk8s.io and openreports.io, one or a List), Checkov (one framework or a list), kube-bench
// (Controls, or one control alone) and Chef InSpec, from fixtures written in each tool's published
// shape: what each maps to, the refusals naming the JSON pointer, a file of another checker refused,
// and the property that a parser only ever reads or refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECK_FORMATS } from '../../src/formats/checks/formats.ts';
import { CHECK_FIXTURES, checkError, checkFixture, parserOf, readChecks } from './check-formats-read.ts';
import { readsOrRefuses } from './scanner-formats-read.ts';

const row = (r: { check: string; verdict: string; resourceId: string }) => [r.check, r.verdict, r.resourceId];

test('policy reports: a List of wgpolicyk8s.io and openreports.io reports; warn fails, skip is no result; the scope stands in for resources', async () => {
  const { results, summary } = await readChecks('policyreport', checkFixture('kyverno-policyreports.json'), 11);
  assert.deepEqual(summary, { format: 'policyreport', results: 6 });
  assert.deepEqual(results.map(row), [
    ['kyverno:require-labels/check-for-labels', 'fail', 'shop/Pod/web'],
    ['kyverno:require-labels/check-for-labels', 'pass', 'shop/Deployment/api'],
    ['kyverno:disallow-latest-tag/validate-image-tag', 'fail', 'shop/Pod/web'],
    ['kyverno:require-labels/check-for-labels', 'pass', 'shop/Pod/cart'],
    ['kyverno:require-ns-labels/check-team', 'fail', 'Namespace/shop'],
    ['kyverno:require-labels/check-for-labels', 'pass', 'pay/Pod/worker'],
  ]);
  assert.equal(results[0].name, 'web');
  assert.equal(results[0].service, 'Pod');
  assert.equal(results[0].time, Date.UTC(2025, 11, 7, 8));
  assert.match(results[0].message!, /label `app.kubernetes.io\/name` is required/);
  // One report alone reads the same, its pointers from the root.
  const one = JSON.parse(checkFixture('kyverno-policyreports.json')).items[0];
  assert.equal((await readChecks('policyreport', JSON.stringify(one))).results.length, 3);
  one.results[1].result = 'maybe';
  assert.deepEqual(await checkError('policyreport', JSON.stringify(one)), {
    field: '/results/1/result',
    message: 'expected the result: pass, fail, warn, error or skip',
  });
});

test('Checkov: passed, failed and skipped (muted) checks of each framework; the resource is file:resource', async () => {
  const { results, summary } = await readChecks('checkov', checkFixture('checkov.json'), 17);
  assert.equal(summary.results, 5);
  assert.deepEqual(results.map(row), [
    ['checkov:CKV_AWS_19', 'pass', '/main.tf:aws_s3_bucket.logs'],
    ['checkov:CKV_AWS_19', 'fail', '/main.tf:aws_s3_bucket.uploads'],
    ['checkov:CKV_AWS_18', 'fail', '/main.tf:aws_s3_bucket.uploads'],
    ['checkov:CKV_AWS_144', 'muted', '/main.tf:aws_s3_bucket.logs'],
    ['checkov:CKV_DOCKER_2', 'fail', '/Dockerfile:/Dockerfile.'],
  ]);
  assert.equal(results[1].service, 'terraform');
  assert.equal(results[1].message, 'Ensure all data stored in the S3 bucket is securely encrypted at rest (/main.tf:14-20)');
  // One framework's object, and the summary Checkov writes when it found nothing to check.
  assert.equal((await readChecks('checkov', JSON.stringify(JSON.parse(checkFixture('checkov.json'))[0]))).results.length, 4);
  assert.equal(
    (
      await readChecks(
        'checkov',
        '{"passed": 0, "failed": 0, "skipped": 0, "parsing_errors": 0, "resource_count": 0, "checkov_version": "3.2.255"}',
      )
    ).results.length,
    0,
  );
  assert.deepEqual(
    await checkError('checkov', '[{"check_type": "terraform", "results": {"failed_checks": [{"check_id": "CKV_AWS_19"}]}}]'),
    {
      field: '/0/results/failed_checks/0/resource',
      message: 'expected the resource the check ran on',
    },
  );
});

test('kube-bench: PASS and FAIL per recommendation, WARN no result; the node type is the resource; an older single control reads too', async () => {
  const { results } = await readChecks('kube-bench', checkFixture('kube-bench.json'), 9);
  assert.deepEqual(results.map(row), [
    ['kube-bench:1.1.1', 'pass', 'master'],
    ['kube-bench:1.1.2', 'fail', 'master'],
    ['kube-bench:4.2.1', 'pass', 'node'],
  ]);
  assert.equal(results[1].name, 'master (kube-bench, cis-1.8)');
  assert.match(results[1].message!, /ownership is set to root:root \(Automated\); actual: root:1000$/);
  const control = JSON.parse(checkFixture('kube-bench.json')).Controls[0];
  assert.equal((await readChecks('kube-bench', JSON.stringify(control))).results.length, 2);
  control.tests[0].results[0].status = 'GOOD';
  assert.equal((await checkError('kube-bench', JSON.stringify({ Controls: [control] }))).field, '/Controls/0/tests/0/results/0/status');
});

test('Chef InSpec: each control’s results on the resources they name, else the platform; skipped is no result; the target is the scope', async () => {
  const { results, summary } = await readChecks('inspec', checkFixture('inspec.json'), 23);
  assert.deepEqual(summary, { format: 'inspec', results: 4, scope: 'web-1.example.com' });
  assert.deepEqual(results.map(row), [
    ['inspec:os-01', 'pass', '/etc/hosts.equiv'],
    ['inspec:os-02', 'pass', '/etc/shadow'],
    ['inspec:os-02', 'fail', '/etc/shadow'],
    ['inspec:sysctl-01', 'pass', 'web-1.example.com'],
  ]);
  assert.equal(results[3].name, 'ubuntu web-1.example.com');
  assert.equal(results[2].time, Date.UTC(2025, 11, 7, 8));
  assert.match(results[2].message!, /mode is expected to cmp == "0640": \nexpected: "0640"/);
  assert.deepEqual(await checkError('inspec', '{"platform": {"name": "x"}, "profiles": [{"controls": [{"title": "no id"}]}]}'), {
    field: '/profiles/0/controls/0/id',
    message: 'expected the control’s ID',
  });
});

test('every format refuses every other checker’s report, naming the place', async () => {
  for (const format of CHECK_FORMATS) {
    for (const [other, file] of Object.entries(CHECK_FIXTURES)) {
      if (other === format) continue;
      const error = await checkError(format, checkFixture(file));
      assert.equal(typeof error.field, 'string', `${format} on ${other}`);
      assert.match(error.message, /^expected /, `${format} on ${other}: ${error.message}`);
    }
  }
});

test('never throws anything but a refusal, whatever the input', async () => {
  const common = ['[', ']', '{', '}', ',', ':', '"x"', '1', 'null', 'true'];
  const words: Record<string, string[]> = {
    policyreport: [
      '"kind"',
      '"PolicyReport"',
      '"List"',
      '"items"',
      '"results"',
      '"result"',
      '"fail"',
      '"policy"',
      '"rule"',
      '"resources"',
      '"name"',
      '"scope"',
      '"timestamp"',
      '"seconds"',
    ],
    checkov: [
      '"check_type"',
      '"results"',
      '"failed_checks"',
      '"passed_checks"',
      '"check_id"',
      '"resource"',
      '"file_path"',
      '"file_line_range"',
    ],
    'kube-bench': ['"Controls"', '"tests"', '"results"', '"status"', '"PASS"', '"FAIL"', '"test_number"', '"node_type"'],
    inspec: [
      '"platform"',
      '"profiles"',
      '"controls"',
      '"id"',
      '"results"',
      '"status"',
      '"passed"',
      '"failed"',
      '"resource_id"',
      '"start_time"',
    ],
  };
  for (const [format, pieces] of Object.entries(words)) await readsOrRefuses(parserOf(format), [...common, ...pieces], 40, 200);
});
