// A scanner file parsed in a worker thread (src/workers/scan-in-pool.ts, issue 36) is read as the
// format's own parser reads it in the main thread: the same findings in the same order, each taken
// with the summary it was read under (the scope a file names late), the same refusal. And the
// threads are shared safely: streams never wait for a free thread (an import's parse waits on its
// reader, so a queued one could wait for ever), and a reader that stops early closes its stream.
// Real worker threads, real fixture files.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerPool } from '../../src/workers/pool.ts';
import { closed, stopsEarly } from './stream-in-pool-checks.ts';
import { scannerFormatsInPool } from '../../src/workers/scan-in-pool.ts';
import { scannerFormat } from '../../src/formats/scanners/formats.ts';
import type { ScanFormat } from '../../src/domain/vulnerabilities/scan-format.ts';
import type { ScannedFinding, ScanSummary } from '../../src/domain/vulnerabilities/scanned-finding.ts';
import { ServiceError } from '../../src/shared/errors.ts';
import { chunked, fixture } from './scanner-formats-read.ts';

interface Read {
  findings: ScannedFinding[];
  /** the scope the watched summary held when each finding was yielded */
  scopes: Array<string | undefined>;
  summary: ScanSummary;
}

async function readWith(format: ScanFormat, chunks: Iterable<Uint8Array | string>): Promise<Read> {
  let live: Readonly<ScanSummary> | undefined;
  const gen = format.parse(chunks, (summary) => (live = summary));
  const findings: ScannedFinding[] = [];
  const scopes: Array<string | undefined> = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { findings, scopes, summary: step.value };
    findings.push(step.value);
    scopes.push(live?.scope);
  }
}

async function refusalOf(format: ScanFormat, chunks: Iterable<Uint8Array | string>): Promise<unknown> {
  try {
    await readWith(format, chunks);
  } catch (error) {
    assert.ok(error instanceof ServiceError, `not a ServiceError: ${error}`);
    return { code: error.code, message: error.message, details: error.details };
  }
  assert.fail('the file was not refused');
}

/** A SARIF log whose run names what it scanned only after its results (the scope comes late). */
function lateScopeSarif(results: number): string {
  const result = (i: number) => ({
    ruleId: 'js/sql-injection',
    level: 'error',
    message: { text: `finding ${i}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${i}.js` }, region: { startLine: i + 1 } } }],
  });
  return JSON.stringify({
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'CodeQL', rules: [{ id: 'js/sql-injection', shortDescription: { text: 'SQL injection' } }] } },
        results: Array.from({ length: results }, (_, i) => result(i)),
        versionControlProvenance: [{ repositoryUri: 'https://github.com/example/late-scope' }],
      },
    ],
  });
}

describe('scanner files parsed in a worker thread', () => {
  const pool = new WorkerPool(1);
  const inPool = scannerFormatsInPool(pool);
  after(() => pool.close());

  const samples: Array<[format: string, file: string]> = [
    ['sarif', 'trivy-alpine.sarif'],
    ['trivy', 'trivy-image.json'],
    ['grype', 'grype-image.json'],
    ['cyclonedx-xml', 'cyclonedx-vex.xml'],
    ['openvex', 'openvex.json'],
  ];
  for (const [name, file] of samples) {
    test(`${name}: the same findings and summary as the main thread's parser (${file})`, async () => {
      const text = fixture(file);
      const here = await readWith(scannerFormat(name)!, chunked(text, 1000));
      // chunks that are parts of one buffer are copied to the thread; whole ones are moved
      const there = await readWith(inPool(name)!, chunked(text, 1000));
      const moved = await readWith(
        inPool(name)!,
        chunked(text, 4096).map((c) => new Uint8Array(c)),
      );
      assert.ok(here.findings.length > 0);
      assert.deepEqual(there, here);
      assert.deepEqual(moved, here);
    });
  }

  test('a scope the file names after its findings: each finding is taken with the summary it was read under', async () => {
    const text = lateScopeSarif(700);
    const here = await readWith(scannerFormat('sarif')!, chunked(text, 2048));
    const there = await readWith(inPool('sarif')!, chunked(text, 2048));
    assert.equal(here.findings.length, 700);
    assert.deepEqual(there, here);
  });

  test('a malformed file is refused with the same error, naming the same place', async () => {
    const text = fixture('trivy-alpine.sarif');
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    const broken = text.replace('"results"', '"results": 5, "x"');
    for (const bad of [cut, broken, 'not json at all']) {
      const here = await refusalOf(scannerFormat('sarif')!, chunked(bad, 500));
      const there = await refusalOf(inPool('sarif')!, chunked(bad, 500));
      assert.deepEqual(there, here);
    }
  });

  test('streams never wait for a free thread: four files on one thread, read in turns in reverse order', async () => {
    const text = lateScopeSarif(2_000);
    const gens = Array.from({ length: 4 }, () => inPool('sarif')!.parse(chunked(text, 4096)));
    // each stream holds its thread's attention while the others are not read: a stream queued
    // behind another that waits on its reader would never start
    for (const gen of [...gens].reverse()) assert.equal((await gen.next()).done, false);
    const counts = await Promise.all(
      gens.map(async (gen) => {
        let n = 1;
        while (!(await gen.next()).done) n++;
        return n;
      }),
    );
    assert.deepEqual(counts, [2_000, 2_000, 2_000, 2_000]);
    await closed(pool);
  });

  test('a reader that stops early closes its stream, and the thread goes on parsing others', async () => {
    await stopsEarly(pool, (chunks) => inPool('sarif')!.parse(chunks), lateScopeSarif(5_000));
    const next = await readWith(inPool('sarif')!, chunked(lateScopeSarif(10), 4096));
    assert.equal(next.findings.length, 10);
  });
});
