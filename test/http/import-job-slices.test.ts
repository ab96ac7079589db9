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
      const written: number[] = [];
      let running = true;
      const writes = (async () => {
        for (let i = 0; running && i < 2000; i++) {
          const res = await api(server.url, '/v1/vulnerabilities', neighbour.token, {
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
      const done = await ended(importer.token, location);
      running = false;
      await writes;
      assert.equal(done.body.data.status, 'succeeded', show(done));
      assert.equal(done.body.data.result.created, FINDINGS);
      const started = Date.parse(done.body.data.startedAt);
      const finished = Date.parse(done.body.data.finishedAt);
      const during = written.filter((at) => at > started && at < finished).length;
      // held for the whole transaction, the neighbour's first write would end with the import
      assert.ok(during >= 3, `${during} of the neighbour's writes ended while the ${finished - started} ms job ran`);
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
