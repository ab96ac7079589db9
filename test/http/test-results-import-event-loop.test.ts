// One organization's large checker report does not slow another organization down (issue 36, "One
// tenant never stalls another"; docs/decisions/performance.md, "Checker reports parsed in the
// worker threads"), on every engine, at both doors: the import route and the job worker. The report
// is parsed in a worker thread (src/workers/check-in-pool.ts), so while it is read another
// organization's GET /v1/controls is answered about as fast as when nothing else runs. On the code
// before, the parse ran on the event loop; the reader gives the loop a turn between the spooled
// file's 64 KiB chunks, so the loop was never held for long (the neighbour's p99 stayed under
// 250 ms), but it was busy 95-99% of the import and each of the neighbour's reads waited behind a
// slice of parse at each of its turns: its median 19-53 ms against 2-7 ms quiet (the figures:
// performance.md). The server runs in this process, so the loop measured is the server's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dialects } from '../harness/engines.ts';
import { api, startServer, type TestServer } from '../harness/server.ts';
import { newOrg, show } from '../harness/vulnerability-writes.ts';
import { checkFixture, importResults } from '../harness/check-imports.ts';

/** Findings of the large report: ~16 MB of Prowler OCSF JSON, three resources each, 1.5-2 s of the loop on the code before. */
const FINDINGS = 10_000;

/** A Prowler OCSF report of `findings` findings, each of a check of its own group and three buckets. */
function largeReport(findings: number): string {
  const finding = (i: number) => ({
    message: `Finding ${i}`,
    metadata: { event_code: `s3_check_${i % 300}`, product: { name: 'Prowler', uid: 'prowler', version: '5.4.0' }, version: '1.4.0' },
    severity: 'Medium',
    status: 'New',
    status_code: i % 3 === 0 ? 'FAIL' : 'PASS',
    status_detail: `S3 Bucket bucket-${i} was checked by s3_check_${i % 300}: see the remediation for what to change.`,
    finding_info: { uid: `prowler-aws-s3_check_${i % 300}-123456789012-eu-west-1-bucket-${i}`, title: `Check ${i % 300}` },
    resources: [0, 1, 2].map((r) => ({
      region: 'eu-west-1',
      group: { name: 's3' },
      labels: [],
      name: `bucket-${i}-${r}`,
      type: 'AwsS3Bucket',
      uid: `arn:aws:s3:::bucket-${i}-${r}`,
    })),
    cloud: { account: { name: 'production', uid: '123456789012' }, provider: 'aws', region: 'eu-west-1' },
    class_name: 'Detection Finding',
    time: 1765094400,
    time_dt: '2025-12-07T08:00:00.000000',
  });
  return JSON.stringify(Array.from({ length: findings }, (_, i) => finding(i)));
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/**
 * The neighbour's GET /v1/controls, one after another 10 ms apart for as long as `work` runs, each
 * timed from when it was due: the server runs in this process, so a held loop delays the asking too.
 */
async function neighbourReads(url: string, token: string, work: Promise<unknown>): Promise<number[]> {
  let done = false;
  void work.finally(() => (done = true)).catch(() => {});
  const latencies: number[] = [];
  let due = performance.now();
  while (!done) {
    const res = await api(url, '/v1/controls', token);
    assert.equal(res.status, 200, show(res));
    latencies.push(performance.now() - due);
    due = performance.now() + 10;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

/** The neighbour's reads while nothing else runs: what a read takes on this machine now. */
async function quietReads(url: string, token: string): Promise<number[]> {
  let done = false;
  const quiet = new Promise((resolve) => setTimeout(resolve, 600)).then(() => (done = true));
  const latencies = await neighbourReads(url, token, quiet);
  assert.ok(done);
  return latencies;
}

/** The job's end, asked every 50 ms. */
async function jobEnd(server: TestServer, token: string, id: string) {
  for (;;) {
    const job = (await api(server.url, `/v1/jobs/${id}`, token)).body.data;
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const dialect of dialects) {
  describe(`a large checker report does not stall another organization (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let importer: string;
    let neighbour: string;
    const report = largeReport(FINDINGS);

    before(async () => {
      // one worker thread, as on a 2-core machine; a report of this size is imported by the route itself
      server = await startServer({
        dialect,
        env: { RATE_LIMIT_MAX: '100000', WORKER_THREADS: '1', IMPORT_JOB_THRESHOLD_BYTES: String(64 * 1024 * 1024) },
      });
      importer = (await newOrg(server, 'Checker importer')).token;
      neighbour = (await newOrg(server, 'Neighbour')).token;
      // warm the path once (the first compilation of the import's code is not what is measured)
      const warm = await importResults(server, importer, 'ocsf', checkFixture('prowler-ocsf.json'), { scope: 'warm' });
      assert.equal(warm.status, 200, show(warm));
      assert.equal((await api(server.url, '/v1/controls', neighbour)).status, 200);
    });
    after(async () => server?.close());

    /** Runs `work` while the neighbour reads; the neighbour's reads, logged beside its quiet ones, and the answer. */
    async function measured<T>(what: string, work: () => Promise<T>) {
      const quiet = await quietReads(server.url, neighbour);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const busy = performance.eventLoopUtilization();
      const started = performance.now();
      const running = work();
      const latencies = await neighbourReads(server.url, neighbour, running);
      const answer = await running;
      const took = performance.now() - started;
      const utilization = performance.eventLoopUtilization(busy).utilization;
      delay.disable();
      const figures = (list: number[]) => [50, 90, 99].map((p) => `p${p} ${percentile(list, p).toFixed(0)}`).join(', ');
      const ms = (ns: number) => (ns / 1e6).toFixed(0);
      console.log(
        `${dialect}, ${what} (${took.toFixed(0)} ms): the neighbour's ${latencies.length} reads ${figures(latencies)} ms (quiet: ${figures(quiet)} ms); ` +
          `the loop busy ${(utilization * 100).toFixed(0)}% of the time, its delay p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms`,
      );
      return { answer, quiet: percentile(quiet, 50), median: percentile(latencies, 50), p99: percentile(latencies, 99) };
    }

    /**
     * The neighbour's median read within twice its quiet one and 10 ms (the form of issue 36's goal,
     * src/shared/event-loop-turns.ts): on the code before 19-53 ms against bounds of 14-24 ms;
     * after 3-15 ms (2 cores, load 1-4). Its p99 is the machine's (a core busy with the parse,
     * PostgreSQL, the client): 49-147 ms after, 47-227 ms before. The bound of 300 ms catches a loop
     * held for the whole parse (1.2-2.5 s here).
     */
    const judge = (m: { quiet: number; median: number; p99: number }, what: string) => {
      const bound = 2 * m.quiet + 10;
      assert.ok(
        m.median <= bound,
        `the neighbour's reads took ${m.median.toFixed(0)} ms at the median ${what} (bound ${bound.toFixed(0)} ms)`,
      );
      assert.ok(m.p99 <= 300, `the neighbour's reads took ${m.p99.toFixed(0)} ms at p99 ${what}`);
    };

    test('through the route: the neighbour reads while the report is parsed', async () => {
      const { answer, ...m } = await measured('the route', () => importResults(server, importer, 'ocsf', report, { scope: 'route' }));
      assert.equal(answer.status, 200, show(answer));
      assert.equal(answer.body.data.results, FINDINGS * 3);
      assert.equal(answer.body.data.unmatched.checks, 300);
      judge(m, 'while the report was imported');
    });

    test('as a job: the neighbour reads while the job worker parses the report', async () => {
      const { answer, ...m } = await measured('a job', async () => {
        const accepted = await importResults(server, importer, 'ocsf', report, { scope: 'job', prefer: 'respond-async' });
        assert.equal(accepted.status, 202, show(accepted));
        return jobEnd(server, importer, accepted.body.data.id);
      });
      assert.equal(answer.status, 'succeeded', JSON.stringify(answer));
      assert.equal(answer.result.results, FINDINGS * 3);
      judge(m, 'while the job ran');
    });
  });
}
