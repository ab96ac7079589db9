// An import job writes in slices (issue 36, "Reads never wait for a write", "writes p99 ≤ 1 s on
// SQLite"): while one organization's 20,000-finding import runs as a job, another organization's
// writes go through one after another instead of waiting for the whole import's transaction (on
// SQLite the one writer was held for all of it). The file is checked whole before its first slice
// is written, so a file refused late writes nothing, as before. Both engines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { api, startServer, type TestServer } from '../harness/server.ts';
import { newOrg, show } from '../harness/vulnerability-writes.ts';
import { importFile, resultAt, sarif, type Response } from '../harness/vulnerability-imports.ts';

const FINDINGS = 20_000;
/** a file of about 3 MiB: under IMPORT_JOB_THRESHOLD_BYTES, so answered 200 when written */
const SYNC_FINDINGS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const results = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => resultAt(`${prefix}/file-${i % 400}.js`, i + 1));

for (const dialect of dialects) {
  describe(`an import job writes in slices (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    before(async () => {
      // the defaults a deployment gets: the time scheduler on (the harness turns it off unless asked)
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', JOB_POLL_MS: '50', TIME_SCHEDULER: 'on' } });
    });
    after(async () => server?.close());

    async function ended(token: string, location: string): Promise<Response> {
      for (let i = 0; i < 1200; i++) {
        const res = await api(server.url, location, token);
        assert.equal(res.status, 200, show(res));
        if (res.body.data.status === 'succeeded' || res.body.data.status === 'failed') return res;
        await sleep(50);
      }
      assert.fail(`the job at ${location} did not end in a minute`);
    }

    /** Another organization's findings created one after another until stopped; when each ended. */
    function keepWriting(token: string): { stop: () => Promise<number[]> } {
      const written: number[] = [];
      let running = true;
      const writes = (async () => {
        for (let i = 0; running && i < 2000; i++) {
          const res = await api(server.url, '/v1/vulnerabilities', token, {
            method: 'POST',
            headers: { 'idempotency-key': `neighbour-${randomUUID()}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              vulnerabilityId: `CVE-2026-${10_000 + i}`,
              title: 'Neighbour finding',
              severity: 'low',
              status: 'open',
            }),
          });
          assert.equal(res.status, 201, show(res));
          written.push(Date.now());
        }
      })();
      return {
        stop: async () => {
          running = false;
          await writes;
          return written;
        },
      };
    }

    test("another organization's writes go through while a large import job runs", async () => {
      const importer = await newOrg(server, 'Bulk importer');
      const neighbour = await newOrg(server, 'Neighbour');
      const accepted = await importFile(server, importer.token, 'sarif', sarif(results(FINDINGS, 'src/a')), {
        scope: 'repo',
        prefer: 'respond-async',
      });
      assert.equal(accepted.status, 202, show(accepted));
      const location = accepted.headers.get('location')!;
      // the neighbour writes one finding after another for as long as the job runs
      const neighbourWrites = keepWriting(neighbour.token);
      const done = await ended(importer.token, location);
      const written = await neighbourWrites.stop();
      assert.equal(done.body.data.status, 'succeeded', show(done));
      assert.equal(done.body.data.result.created, FINDINGS);
      const started = Date.parse(done.body.data.startedAt);
      const finished = Date.parse(done.body.data.finishedAt);
      const during = written.filter((at) => at > started && at < finished).length;
      // held for the whole transaction, the neighbour's first write would end with the import
      assert.ok(during >= 3, `${during} of the neighbour's writes ended while the ${finished - started} ms job ran`);
    });

    test("another organization's writes go through while a large synchronous import runs", async () => {
      const importer = await newOrg(server, 'Synchronous importer');
      const neighbour = await newOrg(server, 'Synchronous neighbour');
      const file = sarif(results(SYNC_FINDINGS, 'src/s'));
      assert.ok(Buffer.byteLength(file) < 8 * 1024 * 1024, 'under the job threshold: answered when done');
      const neighbourWrites = keepWriting(neighbour.token);
      await sleep(100);
      const started = Date.now();
      const key = `sync-${randomUUID()}`;
      const res = await importFile(server, importer.token, 'sarif', file, { scope: 'repo', key });
      const finished = Date.now();
      const written = await neighbourWrites.stop();
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.created, SYNC_FINDINGS);
      // Held for the whole transaction, the neighbour's writes stop for nearly all of the import (and
      // end in a burst as it commits); written in slices, they go on between them.
      const ends = [started, ...written.filter((at) => at > started && at < finished), finished];
      const longestWait = Math.max(...ends.slice(1).map((at, i) => at - ends[i]));
      assert.ok(
        longestWait < (finished - started) / 2,
        `the neighbour's writes stopped for ${longestWait} ms of the ${finished - started} ms import`,
      );
      // the key replays the answer, whatever transactions the import took
      const again = await importFile(server, importer.token, 'sarif', file, { scope: 'repo', key });
      assert.equal(again.status, 200, show(again));
      assert.deepEqual(again.body.data, res.body.data);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
    });

    test("another organization's writes go through while a small file closes many findings", async () => {
      const importer = await newOrg(server, 'Closing importer');
      const neighbour = await newOrg(server, 'Closing neighbour');
      const first = await importFile(server, importer.token, 'sarif', sarif(results(SYNC_FINDINGS, 'src/c')), { scope: 'repo' });
      assert.equal(first.status, 200, show(first));
      // one result: every other finding of the scope is closed, however small the file
      const neighbourWrites = keepWriting(neighbour.token);
      await sleep(100);
      const started = Date.now();
      const res = await importFile(server, importer.token, 'sarif', sarif(results(1, 'src/c')), { scope: 'repo' });
      const finished = Date.now();
      const written = await neighbourWrites.stop();
      assert.equal(res.status, 200, show(res));
      assert.equal(res.body.data.closed, SYNC_FINDINGS - 1);
      const ends = [started, ...written.filter((at) => at > started && at < finished), finished];
      const longestWait = Math.max(...ends.slice(1).map((at, i) => at - ends[i]));
      assert.ok(
        longestWait < (finished - started) / 2,
        `the neighbour's writes stopped for ${longestWait} ms of the ${finished - started} ms import`,
      );
    });

    test('a synchronous file refused late writes nothing', async () => {
      const importer = await newOrg(server, 'Synchronous late refusal');
      const file = sarif([
        ...results(SYNC_FINDINGS - 1, 'src/t'),
        { ruleId: 'js/sql-injection', message: { text: 'no locations' }, level: 7 },
      ]);
      const res = await importFile(server, importer.token, 'sarif', file, { scope: 'repo' });
      assert.equal(res.status, 400, show(res));
      assert.equal(res.body.error.code, 'validation_failed', show(res));
      const list = await api(server.url, '/v1/vulnerabilities?count=50', importer.token);
      assert.equal(list.status, 200, show(list));
      assert.deepEqual(list.body.data, [], 'nothing written');
    });

    test('a file refused late in a job writes nothing, though the job writes in slices', async () => {
      const importer = await newOrg(server, 'Late refusal');
      const file = sarif([...results(FINDINGS - 1, 'src/b'), { ruleId: 'js/sql-injection', message: { text: 'no locations' }, level: 7 }]);
      const accepted = await importFile(server, importer.token, 'sarif', file, { scope: 'repo', prefer: 'respond-async' });
      assert.equal(accepted.status, 202, show(accepted));
      const done = await ended(importer.token, accepted.headers.get('location')!);
      assert.equal(done.body.data.status, 'failed', show(done));
      assert.equal(done.body.data.error.code, 'validation_failed', show(done));
      const list = await api(server.url, '/v1/vulnerabilities?count=50', importer.token);
      assert.equal(list.status, 200, show(list));
      assert.deepEqual(list.body.data, [], 'nothing written');
    });
  });
}
