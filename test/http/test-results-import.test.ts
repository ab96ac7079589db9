// POST /v1/tests/results/imports over HTTP, on every database engine (issue 38): a Prowler OCSF
// report becomes the run of the tests naming its checks, with the control and framework moving on
// the feed in the same commit; checks no test names are counted and listed; the same report again
// writes nothing; a resource the scope no longer reports leaves the test; scopes keep their own
// resources; a malformed file or one of another format is refused naming the place, writing nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, type TestServer } from '../harness/server.ts';
import { show, startWriteServer } from '../harness/vulnerability-writes.ts';
import { readAll } from '../harness/events.ts';
import { dataVersions, rejection, rowCounts } from '../harness/program.ts';
import { CHECK_SAMPLES, checkedProgram, checkFixture, importResults } from '../harness/check-imports.ts';

const ENCRYPTION = ['prowler:s3_bucket_default_encryption', 'prowler:s3_bucket_public_access'];
const REPORT_TIME = Date.UTC(2025, 11, 7, 8);

for (const dialect of dialects) {
  describe(`POST /v1/tests/results/imports (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startWriteServer(dialect);
    });
    after(() => server.close());

    const getTest = async (token: string, id: string, query = '?resourceStatus=fix_required,passing,ignored&fields=testHistory') =>
      (await api(server.url, `/v1/tests/${id}${query}`, token)).body.data;

    test('a Prowler report is the run of the tests naming its checks; the control moves on the feed; unmatched checks are listed', async () => {
      const p = await checkedProgram(server, ENCRYPTION);
      const before = await getTest(p.token, p.testId, '');
      const applied = (await readAll(server, p.token)).events.length;
      assert.deepEqual(before.checks, ENCRYPTION);
      const res = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'));
      assert.equal(res.status, 200, show(res));
      assert.deepEqual(res.body.data, {
        format: 'ocsf',
        scope: 'aws:123456789012',
        results: 5,
        matched: 4,
        tests: { updated: 2, unchanged: 0, older: 0, ignored: 0 },
        testIds: [p.rootTestId, p.testId].sort(),
        unmatched: { results: 1, checks: 1, list: [{ check: 'prowler:cloudtrail_multi_region_enabled', results: 1 }] },
      });
      const t = await getTest(p.token, p.testId);
      assert.equal(t.status, 'fix_required');
      assert.equal(t.lastScannedOn, REPORT_TIME);
      assert.deepEqual(t.testHistory, [{ scannedOn: REPORT_TIME, status: 'fix_required' }]);
      assert.deepEqual(
        t.resources.map((r: any) => [r.resourceId, r.name, r.status, r.region, r.service, r.accountID]),
        [
          ['arn:aws:s3:::logs', 'logs', 'passing', 'eu-west-1', 's3', '123456789012'],
          ['arn:aws:s3:::uploads', 'uploads', 'fix_required', 'eu-west-1', 's3', '123456789012'],
        ],
      );
      assert.match(t.resources[1].description, /^prowler:s3_bucket_default_encryption: S3 Bucket uploads does not have/);
      // Still failing: the control stays non-compliant; the feed has the test's change only.
      const first = { events: (await readAll(server, p.token)).events.slice(applied) };
      assert.deepEqual(first.events.map((e: any) => [e.type, e.resourceId]).sort(), [
        ['test.updated', p.rootTestId],
        ['test.updated', p.testId],
      ]);

      // The bucket is fixed: the test passes, and the control and framework move with it, in one commit.
      const fixed = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf-fixed.json'));
      assert.equal(fixed.status, 200, show(fixed));
      assert.deepEqual(fixed.body.data.tests, { updated: 1, unchanged: 1, older: 0, ignored: 0 });
      const after = await getTest(p.token, p.testId);
      assert.equal(after.status, 'passing');
      assert.equal(after.lastScannedOn, Date.UTC(2025, 11, 8, 8));
      assert.deepEqual(
        after.resources.map((r: any) => [r.resourceId, r.status]),
        [
          ['arn:aws:s3:::logs', 'passing'],
          ['arn:aws:s3:::uploads', 'passing'],
        ],
      );
      const control = (await api(server.url, `/v1/controls/${p.controlId}`, p.token)).body.data;
      assert.equal(control.status, 'compliant');
      const second = { events: (await readAll(server, p.token)).events.slice(applied + first.events.length) };
      assert.deepEqual(
        second.events.map((e: any) => e.type),
        ['test.status_changed', 'test.updated', 'control.status_changed', 'framework.progress_changed'],
      );
      assert.deepEqual(second.events[0].data, { before: 'fix_required', after: 'passing' });
      assert.equal(new Set(second.events.map((e: any) => e.occurredAt)).size, 1);

      // The same report again writes nothing: no event, no data version moved, no row.
      const versions = await dataVersions(server, p.organizationId);
      const rows = await rowCounts(server, p.organizationId);
      const again = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf-fixed.json'));
      assert.equal(again.status, 200, show(again));
      assert.deepEqual(again.body.data.tests, { updated: 0, unchanged: 2, older: 0, ignored: 0 });
      assert.deepEqual(again.body.data.testIds, []);
      assert.deepEqual(await dataVersions(server, p.organizationId), versions);
      assert.deepEqual(await rowCounts(server, p.organizationId), rows);
      assert.equal((await readAll(server, p.token)).events.length, applied + first.events.length + second.events.length);
      // An older report than the test's last scan leaves it as it is.
      const older = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'));
      assert.deepEqual(older.body.data.tests, { updated: 0, unchanged: 1, older: 1, ignored: 0 });
      assert.equal((await getTest(p.token, p.testId)).status, 'passing');
    });

    test('a program document carries a test’s checks: exported sorted, re-applied unchanged, a bad name refused by its pointer', async () => {
      const p = await checkedProgram(server, ['prowler:s3_bucket_public_access', 'prowler:s3_bucket_default_encryption'], 'Program Org');
      const exported = (await p.verbs.export()) as { tests: Array<{ key: string; checks?: string[] }> };
      const entry = exported.tests.find((t) => t.key === 's3_encryption')!;
      assert.deepEqual(entry.checks, ['prowler:s3_bucket_default_encryption', 'prowler:s3_bucket_public_access']);
      const again = await p.verbs.apply(exported);
      assert.equal(again.changed, false);
      const refused = await rejection(p.verbs.apply({ version: 1, tests: [{ key: 'bad', name: 'Bad', checks: ['no tool here'] }] }));
      assert.equal(refused.code, 'validation_failed');
      assert.equal(refused.details[0].field, '/tests/0/checks/0');
      // A change of checks is the test's change on the feed.
      const applied = (await readAll(server, p.token)).events.length;
      await p.verbs.apply({
        version: 1,
        tests: [{ key: 'root_mfa', name: 'Root has MFA', checks: ['prowler:iam_root_hardware_mfa_enabled'] }],
      });
      const events = (await readAll(server, p.token)).events.slice(applied);
      assert.deepEqual(
        events.map((e: any) => [e.type, Object.keys(e.data.changes ?? {})]),
        [['test.updated', ['checks', 'modifiedOn']]],
      );
    });

    test('the same file after a test changed is read again: a check mapped since is taken in', async () => {
      const p = await checkedProgram(server, ENCRYPTION, 'Mapping Org');
      const first = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'));
      assert.equal(first.body.data.unmatched.checks, 1, show(first));
      const again = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'));
      assert.deepEqual(again.body.data.tests, { updated: 0, unchanged: 2, older: 0, ignored: 0 });
      // The team maps the unmatched check to a new test; the same file now feeds it.
      const plan = await p.verbs.apply({
        version: 1,
        tests: [{ key: 'cloudtrail', name: 'CloudTrail is multi-region', checks: ['prowler:cloudtrail_multi_region_enabled'] }],
      });
      const cloudtrail = plan.changes.find((c) => c.key === 'cloudtrail')!.id;
      const mapped = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'));
      assert.equal(mapped.status, 200, show(mapped));
      assert.deepEqual(mapped.body.data.testIds, [cloudtrail]);
      assert.deepEqual(mapped.body.data.tests, { updated: 1, unchanged: 2, older: 0, ignored: 0 });
      assert.deepEqual(mapped.body.data.unmatched, { results: 0, checks: 0, list: [] });
      const t = await getTest(p.token, cloudtrail);
      assert.equal(t.status, 'passing'); // its one resource's failure is muted: ignored, not failing
      assert.deepEqual(
        t.resources.map((r: any) => [r.resourceId, r.status]),
        [['arn:aws:cloudtrail:us-east-1:123456789012:trail/main', 'ignored']],
      );
    });

    test('a resource the scope no longer reports leaves the test; another scope keeps its own', async () => {
      const p = await checkedProgram(server, ['prowler:s3_bucket_default_encryption'], 'Scopes Org');
      const report = JSON.parse(checkFixture('prowler-ocsf.json')) as any[];
      const encryption = report.filter((f) => f.metadata.event_code === 's3_bucket_default_encryption');
      for (const f of encryption) {
        // no time: each change is "now"
        delete f.time;
        delete f.time_dt;
      }
      assert.equal((await importResults(server, p.token, 'ocsf', JSON.stringify(encryption), { scope: 'prod' })).status, 200);
      const staging = [{ ...encryption[0], resources: [{ ...encryption[0].resources[0], uid: 'arn:aws:s3:::staging', name: 'staging' }] }];
      assert.equal((await importResults(server, p.token, 'ocsf', JSON.stringify(staging), { scope: 'staging' })).status, 200);
      const ids = async () => (await getTest(p.token, p.testId)).resources.map((r: any) => r.resourceId);
      assert.deepEqual(await ids(), ['arn:aws:s3:::logs', 'arn:aws:s3:::staging', 'arn:aws:s3:::uploads']);
      // prod no longer reports the failing bucket: it leaves, staging's stays, the test passes.
      const res = await importResults(server, p.token, 'ocsf', JSON.stringify([encryption[0]]), { scope: 'prod', multipart: true });
      assert.equal(res.status, 200, show(res));
      assert.deepEqual(res.body.data.tests.updated, 1);
      assert.deepEqual(await ids(), ['arn:aws:s3:::logs', 'arn:aws:s3:::staging']);
      assert.equal((await getTest(p.token, p.testId)).status, 'passing');
    });

    test('kube-bench names no node: each node imported with its own scope keeps its own resource', async () => {
      const p = await checkedProgram(server, ['kube-bench:1.1.2'], 'Nodes Org');
      for (const node of ['node-1', 'node-2']) {
        const res = await importResults(server, p.token, 'kube-bench', checkFixture('kube-bench.json'), { scope: node });
        assert.equal(res.status, 200, show(res));
      }
      const t = await getTest(p.token, p.testId);
      assert.deepEqual(
        t.resources.map((r: any) => [r.resourceId, r.name, r.status]),
        [
          ['node-1/master', 'master (kube-bench, cis-1.8) on node-1', 'fix_required'],
          ['node-2/master', 'master (kube-bench, cis-1.8) on node-2', 'fix_required'],
        ],
      );
    });

    test('a file that is not Prowler’s OCSF, or is malformed, is refused naming the place; nothing is written', async () => {
      const p = await checkedProgram(server, ENCRYPTION, 'Refusals Org');
      const rows = await rowCounts(server, p.organizationId);
      const versions = await dataVersions(server, p.organizationId);
      const cases: Array<[string, string, RegExp]> = [
        ['{"results": {"passed_checks": []}}', '', /a list of findings\), found an object/],
        ['[{"metadata": {"event_code": "x"}, "status_code": "MAYBE"}]', '/0/status_code', /PASS, FAIL or MANUAL/],
        ['[{"status_code": "PASS"}]', '/0/metadata/event_code', /check’s ID/],
        ['[{"metadata": {"event_code": "x"}, "status_code": "PASS", "resources": [{"region": "x"}]}]', '/0/resources/0/uid', /uid or name/],
        ['[{"metadata": {"event_code": "x"}, "status_code": "PASS"}, ', '/1', /expected/],
        ['[1]', '/0', /a finding/],
      ];
      for (const [body, field, message] of cases) {
        const res = await importResults(server, p.token, 'ocsf', body);
        assert.equal(res.status, 400, `${body}: ${show(res)}`);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.details[0].field, field, `${body}: ${show(res)}`);
        assert.match(res.body.error.details[0].message, message, body);
      }
      const unknown = await importResults(server, p.token, 'prowler', '[]');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.details[0].field, 'format');
      assert.match(unknown.body.error.details[0].message, /must be one of ocsf/);
      assert.deepEqual(await rowCounts(server, p.organizationId), rows);
      assert.deepEqual(await dataVersions(server, p.organizationId), versions);
    });

    test('every format: its sample is the run of the test naming one of its checks; the same sample again writes nothing', async () => {
      for (const sample of CHECK_SAMPLES) {
        const p = await checkedProgram(server, [sample.check], `Format ${sample.format}`);
        const res = await importResults(server, p.token, sample.format, checkFixture(sample.file), {
          multipart: sample.format === 'checkov',
        });
        assert.equal(res.status, 200, `${sample.format}: ${show(res)}`);
        assert.ok(res.body.data.testIds.includes(p.testId), `${sample.format}: ${show(res)}`);
        const t = await getTest(p.token, p.testId);
        assert.equal(t.status, sample.status, sample.format);
        assert.equal(t.resources.length, sample.resources, `${sample.format}: ${JSON.stringify(t.resources)}`);
        const versions = await dataVersions(server, p.organizationId);
        const rows = await rowCounts(server, p.organizationId);
        const again = await importResults(server, p.token, sample.format, checkFixture(sample.file));
        assert.equal(again.status, 200, show(again));
        assert.equal(again.body.data.tests.updated, 0, `${sample.format}: ${show(again)}`);
        assert.deepEqual(await dataVersions(server, p.organizationId), versions, sample.format);
        assert.deepEqual(await rowCounts(server, p.organizationId), rows, sample.format);
      }
    });

    test('a large report runs as a job: 202, then the same answer at the job', async () => {
      const p = await checkedProgram(server, ENCRYPTION, 'Job Org');
      const res = await importResults(server, p.token, 'ocsf', checkFixture('prowler-ocsf.json'), { prefer: 'respond-async' });
      assert.equal(res.status, 202, show(res));
      assert.equal(res.body.data.kind, 'tests.importResults');
      let job = res.body.data;
      for (let i = 0; i < 200 && (job.status === 'queued' || job.status === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        job = (await api(server.url, `/v1/jobs/${job.id}`, p.token)).body.data;
      }
      assert.equal(job.status, 'succeeded', JSON.stringify(job));
      assert.deepEqual(job.result.tests, { updated: 2, unchanged: 0, older: 0, ignored: 0 });
      assert.equal((await getTest(p.token, p.testId)).status, 'fix_required');
    });
  });
}
