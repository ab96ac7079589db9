// `compliance vulnerabilities import` of a file the service takes as a job (issue 36), as a child
// process against the real service on each engine: the same answer as a synchronous import (the
// SDK follows the job), a status line on stderr when progress is drawn (forced here with
// --progress: stderr is a pipe) and none on a pipe otherwise, and a malformed file's refusal
// with the synchronous import's exit code and field.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { resultAt, sarif } from '../../../test/harness/vulnerability-imports.ts';
import { explain } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

const THRESHOLD = 4096;
const results = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => resultAt(`${prefix}-${i}.js`, i + 1));

describe('compliance vulnerabilities import of a job', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let file: string;
      before(async () => {
        s = await startCliService(dialect, { demo: false, env: { IMPORT_JOB_THRESHOLD_BYTES: String(THRESHOLD), JOB_POLL_MS: '50' } });
        file = path.join(s.home, 'big.sarif');
        fs.writeFileSync(file, sarif(results(60, 'src/cli-job')));
        assert.ok(fs.statSync(file).size > THRESHOLD);
      });
      after(async () => {
        await s?.close();
      });
      const rw = (args: string[]) => s.cli(args, { client: s.readWrite });

      it('prints the synchronous answer; no job line on a pipe', async () => {
        const res = await rw(['vulnerabilities', 'import', '--format', 'sarif', '--scope', 'cli-job', file, '--json']);
        assert.equal(res.code, 0, explain(res));
        const answer = JSON.parse(res.stdout);
        assert.deepEqual(Object.keys(answer), [
          'format',
          'scope',
          'source',
          'created',
          'updated',
          'closed',
          'reopened',
          'unchanged',
          'findingIds',
        ]);
        assert.equal(answer.created, 60);
        assert.equal(answer.scope, 'cli-job');
        assert.doesNotMatch(res.stderr, /import job/, 'no progress on a pipe');
      });

      it('with progress drawn: the upload, then one line per status and stage of the job, then the same summary', async () => {
        const res = await rw(['vulnerabilities', 'import', '--format', 'sarif', '--scope', 'cli-job-2', file, '-o', 'table', '--progress']);
        assert.equal(res.code, 0, explain(res));
        assert.match(
          res.stdout,
          /^imported sarif \([\d.]+ KiB\) into scope cli-job-2, source github\n60 created, 0 updated, 0 closed, 0 reopened, 0 unchanged\n$/,
        );
        const lines = res.stderr.split('\n').filter((l) => l.startsWith('import job '));
        assert.equal(lines[0], 'import job queued', res.stderr);
        assert.equal(lines.at(-1), 'import job done', res.stderr);
        // its stages between, one line each (the counts only at a terminal): at least the last one
        assert.equal(lines.at(-2), 'import job writing', res.stderr);
        assert.ok(res.stderr.indexOf('import [') < res.stderr.indexOf('import job queued'), 'the upload bar first');
      });

      it('a malformed file: exit 6 naming the place in the file, as the synchronous import', async () => {
        const bad = path.join(s.home, 'bad.sarif');
        const good = sarif(results(60, 'src/cli-bad'));
        fs.writeFileSync(bad, `${good.slice(0, -3)},,]}]}`);
        const res = await rw(['vulnerabilities', 'import', '--format', 'sarif', bad]);
        assert.equal(res.code, 6, explain(res));
        assert.match(res.stderr, /validation_failed/);
        assert.match(res.stderr, /\/runs\/0\/results/);
      });
    });
  }
});
