// An import the service takes as a job (issue 36), through the SDK against the real service on
// every engine: `vulnerabilities.import` follows the 202's job to its end and answers as a 200 does,
// or throws the error class the synchronous import would; `jobs.retrieve(id)` reads a job; the
// follow honours its time-out while the job runs on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeoutError, ValidationError, type ComplianceClient, type JobProgress } from '../src/index.ts';
import { resultAt, sarif } from '../../../test/harness/vulnerability-imports.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

/** Files above this are jobs in these tests. */
const THRESHOLD = 4096;
const results = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => resultAt(`${prefix}-${i}.js`, i + 1));
const bytes = (text: string) => new TextEncoder().encode(text);

for (const dialect of dialects) {
  describe(`SDK imports that become jobs (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;
    before(async () => {
      svc = await startDemoService(dialect, { IMPORT_JOB_THRESHOLD_BYTES: String(THRESHOLD), JOB_POLL_MS: '50' });
      sdk = svc.readWrite;
    });
    after(() => svc?.close());

    test('a file above the threshold: import() follows the job and answers as a 200 does', async () => {
      const file = sarif(results(60, 'src/sdk-job'));
      assert.ok(file.length > THRESHOLD);
      const seen: string[] = [];
      const progress: JobProgress[] = [];
      const answer = await sdk.vulnerabilities.import(
        { format: 'sarif', scope: 'sdk-job', file: bytes(file) },
        { onJobStatus: (status) => seen.push(status), onJobProgress: (p) => progress.push(p) },
      );
      assert.equal(answer.data.created, 60);
      assert.equal(answer.data.format, 'sarif');
      assert.equal(answer.data.scope, 'sdk-job');
      assert.equal(answer.data.findingIds.length, 60);
      assert.equal(answer.response.status, 200);
      assert.equal(typeof answer.meta.requestId, 'string');
      assert.equal(seen[0], 'queued', seen.join(' '));
      assert.equal(seen.at(-1), 'succeeded', seen.join(' '));
      // the last progress heard is the ended job's: every finding checked and written
      assert.deepEqual(progress.at(-1), { stage: 'writing', parsed: 60, written: 60, total: 60 }, JSON.stringify(progress));
      // the same file again is a job too, and its answer says nothing changed
      const again = await sdk.vulnerabilities.import({ format: 'sarif', scope: 'sdk-job', file: bytes(file) });
      assert.deepEqual({ ...again.data, findingIds: [] }, { ...answer.data, created: 0, unchanged: 60, findingIds: [] });
    });

    test('a small file stays synchronous unless respondAsync asks for a job; both answer the same', async () => {
      const seen: string[] = [];
      const small = await sdk.vulnerabilities.import(
        { format: 'sarif', scope: 'sdk-small', file: bytes(sarif(results(2, 'src/sdk-small'))) },
        { onJobStatus: (s) => seen.push(s) },
      );
      assert.equal(small.response.status, 200);
      assert.equal(seen.length, 0, 'no job');
      const asked = await sdk.vulnerabilities.import(
        { format: 'sarif', scope: 'sdk-small-async', file: bytes(sarif(results(2, 'src/sdk-small'))), respondAsync: true },
        { onJobStatus: (s) => seen.push(s) },
      );
      assert.equal(seen[0], 'queued');
      assert.deepEqual({ ...asked.data, scope: null, findingIds: [] }, { ...small.data, scope: null, findingIds: [] });
    });

    test('a malformed file’s job throws the ValidationError the synchronous import would', async () => {
      const good = sarif(results(60, 'src/sdk-bad'));
      const file = `${good.slice(0, -3)},,]}]}`;
      const viaJob = await sdk.vulnerabilities.import({ format: 'sarif', file: bytes(file) }).catch((err: unknown) => err);
      assert.ok(viaJob instanceof ValidationError, String(viaJob));
      assert.equal(viaJob.status, 400);
      assert.equal(viaJob.code, 'validation_failed');
      assert.equal(viaJob.message, 'The file could not be read.');
      // the synchronous import's 400 for this file (test/http/vulnerability-import-jobs.test.ts compares the two bodies)
      assert.deepEqual(viaJob.details, [{ field: '/runs/0/results', message: 'expected a member name in quotes, found “,”' }]);
    });

    test('jobs.retrieve(id) reads the job; a follow past jobTimeoutMs throws TimeoutError while the job runs on', async () => {
      const file = sarif(results(60, 'src/sdk-timeout'));
      const err = await sdk.vulnerabilities
        .import(
          { format: 'sarif', scope: 'sdk-timeout', file: bytes(file) },
          { jobTimeoutMs: 1, idempotencyKey: `sdk-timeout-${Date.now()}` },
        )
        .catch((e: unknown) => e);
      assert.ok(err instanceof TimeoutError, String(err));
      const id = /job_[0-9a-f-]{36}/.exec(err.message)?.[0];
      assert.ok(id, err.message);
      let job = await sdk.jobs.retrieve(id);
      for (let i = 0; i < 200 && job.data.status !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        job = await sdk.jobs.retrieve(id);
      }
      assert.equal(job.data.status, 'succeeded');
      assert.equal(job.data.kind, 'vulnerabilities.import');
      // a job's result is its kind's answer: a scanner import's here
      const result = job.data.result;
      assert.equal(result && 'created' in result ? result.created : undefined, 60);
    });
  });
}
