// A checker's report parsed in a worker thread (src/workers/check-in-pool.ts, issue 36) is read as
// the format's own parser reads it in the main thread: for every check-results format, the same
// results in the same order and the same summary; the same refusal, naming the same place, with the
// results read before it yielded first; a report larger than a batch crosses in order; a reader
// that stops early closes its stream. Real worker threads, the formats' fixture files.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerPool } from '../../src/workers/pool.ts';
import { closed, stopsEarly } from './stream-in-pool-checks.ts';
import { checkFormatsInPool } from '../../src/workers/check-in-pool.ts';
import { CHECK_FORMATS, checkFormat } from '../../src/formats/checks/formats.ts';
import type { CheckFormat, CheckReportSummary, CheckResult } from '../../src/domain/tests/check-result.ts';
import { ServiceError } from '../../src/shared/errors.ts';
import { chunked } from './scanner-formats-read.ts';
import { CHECK_FIXTURES, checkFixture } from './check-formats-read.ts';

/** A change to each sample that its format refuses deep inside the report: a verdict it does not know, a field missing. */
const BREAKS: Record<string, [string, string]> = {
  ocsf: ['"status_code": "PASS"', '"status_code": "MAYBE"'],
  policyreport: ['"result": "fail"', '"result": "maybe"'],
  checkov: ['"resource": ', '"resources": '],
  'kube-bench': ['"status": "PASS"', '"status": "GOOD"'],
  inspec: ['"id": "os-01"', '"ids": "os-01"'],
};

interface Read {
  results: CheckResult[];
  summary?: CheckReportSummary;
  /** the refusal, as its code, message and details */
  refusal?: { code: string; message: string; details: unknown };
}

/** What `format` yields of the chunks, and what it returns or throws (a ServiceError's parts). */
async function readWith(format: CheckFormat, chunks: Iterable<Uint8Array | string>): Promise<Read> {
  const gen = format.parse(chunks);
  const results: CheckResult[] = [];
  try {
    for (;;) {
      const step = await gen.next();
      if (step.done) return { results, summary: step.value };
      results.push(step.value);
    }
  } catch (error) {
    assert.ok(error instanceof ServiceError, `not a ServiceError: ${error}`);
    return { results, refusal: { code: error.code, message: error.message, details: error.details } };
  }
}

/** A Prowler OCSF report of `n` findings of one resource each, the check's ID taken from `check`. */
function ocsfReport(n: number, check = (i: number) => `s3_check_${i % 7}`): string {
  const sample = JSON.parse(checkFixture('prowler-ocsf.json'))[0];
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      ...sample,
      metadata: { ...sample.metadata, event_code: check(i) },
      status_code: i % 2 ? 'FAIL' : 'PASS',
      resources: [{ ...sample.resources[0], name: `bucket-${i}`, uid: `arn:aws:s3:::bucket-${i}` }],
    })),
  );
}

describe("checkers' reports parsed in a worker thread", () => {
  const pool = new WorkerPool(1);
  const inPool = checkFormatsInPool(pool);
  after(() => pool.close());

  test('every format has a sample here', () => {
    assert.deepEqual(Object.keys(CHECK_FIXTURES).sort(), [...CHECK_FORMATS].sort());
    assert.equal(inPool('nonesuch'), undefined);
    // a format is wrapped once, and keeps the registry's words
    assert.equal(inPool('ocsf'), inPool('ocsf'));
    assert.equal(inPool('ocsf')!.openingWords, checkFormat('ocsf')!.openingWords);
    assert.notEqual(inPool('ocsf')!.parse, checkFormat('ocsf')!.parse);
  });

  for (const [name, file] of Object.entries(CHECK_FIXTURES)) {
    test(`${name}: the same results and summary as the main thread's parser (${file})`, async () => {
      const text = checkFixture(file);
      const here = await readWith(checkFormat(name)!, chunked(text, 500));
      // chunks that are parts of one buffer are copied to the thread; whole ones are moved
      const there = await readWith(inPool(name)!, chunked(text, 500));
      const moved = await readWith(
        inPool(name)!,
        chunked(text, 4096).map((c) => new Uint8Array(c)),
      );
      assert.ok(here.results.length > 0 && here.summary);
      assert.deepEqual(there, here);
      assert.deepEqual(moved, here);
    });

    test(`${name}: a malformed report is refused with the same error, naming the same place`, async () => {
      const text = checkFixture(file);
      const other = Object.values(CHECK_FIXTURES).find((f) => f !== file)!;
      const bad = [
        text.slice(0, Math.floor(text.length * 0.6)),
        `${text.trimEnd()} ,`,
        'not json at all',
        '',
        checkFixture(other),
        text.replace(...BREAKS[name]),
      ];
      for (const report of bad) {
        const here = await readWith(checkFormat(name)!, chunked(report, 300));
        const there = await readWith(inPool(name)!, chunked(report, 300));
        assert.ok(here.refusal, `${name} read ${JSON.stringify(report.slice(0, 60))}`);
        assert.deepEqual(there, here);
      }
    });
  }

  test('a report of many batches crosses in order, and a refusal after them names the same place, after the same results', async () => {
    const text = ocsfReport(3_000);
    const here = await readWith(checkFormat('ocsf')!, chunked(text, 8192));
    const there = await readWith(inPool('ocsf')!, chunked(text, 8192));
    assert.equal(here.results.length, 3_000);
    assert.deepEqual(there, here);
    // the check's ID of finding 2,500 is empty: refused there, the 2,500 results before it read
    const broken = ocsfReport(3_000, (i) => (i === 2_500 ? ' ' : `s3_check_${i % 7}`));
    const refusedHere = await readWith(checkFormat('ocsf')!, chunked(broken, 8192));
    const refusedThere = await readWith(inPool('ocsf')!, chunked(broken, 8192));
    assert.ok(refusedHere.refusal, 'the report was not refused');
    assert.equal((refusedHere.refusal.details as Array<{ field: string }>)[0].field, '/2500/metadata/event_code');
    assert.equal(refusedHere.results.length, 2_500);
    assert.deepEqual(refusedThere, refusedHere);
    await closed(pool);
  });

  test('a reader that stops early closes its stream, and the thread goes on parsing others', async () => {
    await stopsEarly(pool, (chunks) => inPool('ocsf')!.parse(chunks), ocsfReport(5_000));
    const next = await readWith(inPool('inspec')!, chunked(checkFixture('inspec.json'), 4096));
    assert.equal(next.results.length, 4);
  });
});
