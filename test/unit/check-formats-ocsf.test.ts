// Prowler's OCSF JSON read as check results (src/formats/ocsf/): one result per finding and
// resource, the check from metadata.event_code, PASS/FAIL/muted, MANUAL skipped, the account as the
// scope, Prowler 3's Security Findings too; refusals name the JSON pointer; never a throw of
// another kind on arbitrary input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkError, checkFixture, parserOf, readChecks } from './check-formats-read.ts';
import { readsOrRefuses } from './scanner-formats-read.ts';

test('a Prowler 5 report: one result per finding and resource, MANUAL skipped, a muted failure marked', async () => {
  const { results, summary } = await readChecks('ocsf', checkFixture('prowler-ocsf.json'), 13);
  assert.deepEqual(summary, { format: 'ocsf', results: 5, scope: 'aws:123456789012' });
  assert.deepEqual(
    results.map((r) => [r.check, r.verdict, r.resourceId]),
    [
      ['prowler:s3_bucket_default_encryption', 'pass', 'arn:aws:s3:::logs'],
      ['prowler:s3_bucket_default_encryption', 'fail', 'arn:aws:s3:::uploads'],
      ['prowler:s3_bucket_public_access', 'pass', 'arn:aws:s3:::logs'],
      ['prowler:iam_root_mfa_enabled', 'fail', 'arn:aws:iam::123456789012:root'],
      ['prowler:cloudtrail_multi_region_enabled', 'muted', 'arn:aws:cloudtrail:us-east-1:123456789012:trail/main'],
    ],
  );
  assert.deepEqual(results[1], {
    check: 'prowler:s3_bucket_default_encryption',
    verdict: 'fail',
    resourceId: 'arn:aws:s3:::uploads',
    name: 'uploads',
    region: 'eu-west-1',
    service: 's3',
    accountID: '123456789012',
    message: 'S3 Bucket uploads does not have Server Side Encryption.',
    time: Date.UTC(2025, 11, 7, 8),
  });
});

test('a Prowler 3 Security Finding: the check from metadata.product.feature.uid, the outcome from compliance.status', async () => {
  const finding = {
    finding: { title: 'Check if ACM Certificates are about to expire', uid: 'prowler-aws-acm_certificates_expiration_check-1' },
    resources: [{ group: { name: 'acm' }, region: 'eu-west-1', name: 'cert', uid: 'arn:aws:acm:eu-west-1:1:certificate/x' }],
    status_detail: 'ACM Certificate expires in 111 days.',
    compliance: { status: 'Success', requirements: ["SOC2: ['cc_6_7']"] },
    cloud: { account: { uid: '012345678912' }, region: 'eu-west-1', provider: 'aws' },
    time: '2023-06-30 10:28:55.297615',
    metadata: { product: { name: 'Prowler', feature: { uid: 'acm_certificates_expiration_check' } }, version: '1.0.0-rc.3' },
    class_uid: 2001,
  };
  const { results } = await readChecks('ocsf', JSON.stringify([finding]));
  assert.deepEqual(
    results.map((r) => [r.check, r.verdict, r.resourceId, r.time]),
    [
      [
        'prowler:acm_certificates_expiration_check',
        'pass',
        'arn:aws:acm:eu-west-1:1:certificate/x',
        Date.UTC(2023, 5, 30, 10, 28, 55, 297),
      ],
    ],
  );
});

test('refusals name the JSON pointer and what was expected', async () => {
  assert.deepEqual(await checkError('ocsf', '{"Controls": []}'), {
    field: '',
    message: 'expected a Prowler OCSF JSON report (a list of findings), found an object',
  });
  assert.deepEqual(await checkError('ocsf', '[{"metadata": {"event_code": "a"}, "status_code": "PASS"}, {"status_code": "FAIL"}]'), {
    field: '/1/metadata/event_code',
    message: 'expected the check’s ID (metadata.event_code)',
  });
  assert.equal(
    (await checkError('ocsf', '[{"metadata": {"event_code": "a"}, "status_code": "PASS", "resources": "x"}]')).field,
    '/0/resources',
  );
  assert.equal((await checkError('ocsf', '[{"metadata": {"event_code": 7}}]')).field, '/0/metadata/event_code');
  assert.match((await checkError('ocsf', '[{"metadata": ')).message, /expected/);
});

test('never throws anything but a refusal, whatever the input', async () => {
  const pieces = [
    '[',
    ']',
    '{',
    '}',
    ',',
    ':',
    '"metadata"',
    '"event_code"',
    '"status_code"',
    '"PASS"',
    '"FAIL"',
    '"resources"',
    '"uid"',
    '"x"',
    '1',
    'null',
    '"cloud"',
    '"account"',
  ];
  await readsOrRefuses(parserOf('ocsf'), pieces, 40, 300);
});
