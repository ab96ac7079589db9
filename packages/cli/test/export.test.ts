// `compliance export` on each engine: one NDJSON file per resource whose line count equals the
// API's count (findings: meta.totalCount), written under a temporary name and renamed; paced to a
// tight rate limit with no retries allowed (so any 429 would fail it); resources outside the
// organization's plan skipped, or refused when named (exit 5); Ctrl-C leaves no partial file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { explain, runCli, type CliResult } from './support/cli.ts';
import { dialects, GENEROUS_LIMITS, startCliService, type CliService } from './support/service.ts';

const RESOURCES = ['frameworks', 'controls', 'policies', 'evidence', 'tests', 'vulnerabilities'];

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}

function lines(file: string): unknown[] {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), `${file} ends with a newline`);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('compliance export', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    // The engines run side by side; within one, the steps share a credential and its rate limit, so one at a time
    // (node:test would otherwise give them the parent's concurrency).
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      before(async () => {
        s = await startCliService(dialect);
      });
      after(async () => {
        await s?.close();
      });

      it('writes every resource; line counts equal the API counts and totalCount', async () => {
        const dir = path.join(s.home, 'export-all', 'nested');
        const res = await s.cli(['export', '--dir', dir, '--progress', '-o', 'json']);
        const summary = JSON.parse(ok(res));
        assert.equal(summary.directory, dir);
        assert.deepEqual(
          summary.resources.map((r: { resource: string }) => r.resource),
          RESOURCES,
        );
        assert.deepEqual(fs.readdirSync(dir).sort(), RESOURCES.map((r) => `${r}.ndjson`).sort(), 'no temporary files are left');

        const expected: Record<string, number> = {
          frameworks: (await s.sdk.frameworks.list()).data.length,
          controls: (await s.sdk.controls.list()).data.length,
          policies: (await s.sdk.policies.list()).data.length,
          evidence: (await s.sdk.evidence.list()).data.length,
          tests: (await s.sdk.tests.list()).data.length,
          vulnerabilities: (await s.sdk.vulnerabilities.listPage()).meta.totalCount,
        };
        for (const entry of summary.resources) {
          const records = lines(path.join(dir, `${entry.resource}.ndjson`));
          assert.equal(records.length, expected[entry.resource], entry.resource);
          assert.equal(entry.records, expected[entry.resource], entry.resource);
          assert.equal(entry.file, path.join(dir, `${entry.resource}.ndjson`));
        }
        const findings = lines(path.join(dir, 'vulnerabilities.ndjson')) as Array<{ vulnerabilityId: string; cvssScore?: number }>;
        assert.ok(findings.length > 400);
        assert.equal(new Set(findings.map((f) => f.vulnerabilityId)).size, findings.length, 'no finding twice');
        // Every optional list field is asked for.
        assert.ok(findings.some((f) => typeof f.cvssScore === 'number'));
        const controls = lines(path.join(dir, 'controls.ndjson')) as Array<{ mappedFrameworkIds?: string[] }>;
        assert.ok(controls.every((c) => Array.isArray(c.mappedFrameworkIds)));
        assert.match(res.stderr, new RegExp(`vulnerabilities \\[#+\\] 100% \\(${expected.vulnerabilities}/${expected.vulnerabilities}\\)`));

        // A second run replaces the files; a table summary goes to stdout.
        const again = await s.cli(['export', '--dir', dir, '--resources', 'frameworks,tests', '-o', 'table']);
        assert.match(ok(again), /^RESOURCE\s+RECORDS\s+FILE\nframeworks\s+\d+\s+\/.*frameworks\.ndjson\ntests\s+\d+/);
        assert.equal(lines(path.join(dir, 'frameworks.ndjson')).length, expected.frameworks);

        const bad = await s.cli(['export', '--dir', dir, '--resources', 'frameworks,risks']);
        assert.equal(bad.code, 2, explain(bad));
        assert.match(bad.stderr, /unknown resource "risks"/);
        const noDir = await s.cli(['export']);
        assert.equal(noDir.code, 2, explain(noDir));
      });

      it('stays inside a tight rate limit by waiting for the window, without a single retry', async () => {
        // A second app on the same database, allowing 4 requests a second per credential.
        const tight = await startServer({
          database: s.server.database,
          env: { ...GENEROUS_LIMITS, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_SEC: '1' },
        });
        try {
          const dir = path.join(s.home, 'export-paced');
          const res = await s.cli(
            [
              'export',
              '--dir',
              dir,
              '--resources',
              'frameworks,vulnerabilities',
              '--page-size',
              '50',
              '--max-retries',
              '0',
              '-o',
              'ndjson',
              '--progress',
            ],
            {
              env: { COMPLIANCE_BASE_URL: tight.url },
            },
          );
          const summary = ok(res)
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
          const totalCount = (await s.sdk.vulnerabilities.listPage()).meta.totalCount;
          assert.deepEqual(
            summary.map((r: { records: number }) => r.records),
            [(await s.sdk.frameworks.list()).data.length, totalCount],
          );
          assert.equal(lines(path.join(dir, 'vulnerabilities.ndjson')).length, totalCount);
          assert.match(res.stderr, /waiting \d+ s for the rate-limit window/);
        } finally {
          await tight.close();
        }
      });

      it('skips resources outside the plan unless they are named (then exit 5)', async () => {
        const limited = await createOrgWithCredential(s.server.system, { name: 'Frameworks only', plan: 'framework,control' });
        const client = { clientId: limited.clientId, clientSecret: limited.clientSecret };
        const dir = path.join(s.home, 'export-plan');
        const [all, named] = await Promise.all([
          s.cli(['export', '--dir', dir, '-o', 'json'], { client }),
          s.cli(['export', '--dir', path.join(s.home, 'export-plan-named'), '--resources', 'frameworks,policies'], { client }),
        ]);
        const summary = JSON.parse(ok(all));
        assert.deepEqual(
          summary.resources.map((r: { resource: string; records?: number; skipped?: string }) => [r.resource, r.records ?? r.skipped]),
          [
            ['frameworks', 0],
            ['controls', 0],
            ['policies', 'plan_restricted'],
            ['evidence', 'plan_restricted'],
            ['tests', 'plan_restricted'],
            ['vulnerabilities', 'plan_restricted'],
          ],
        );
        assert.match(all.stderr, /skipped policies: the organization's plan does not include it/);
        assert.deepEqual(fs.readdirSync(dir).sort(), ['controls.ndjson', 'frameworks.ndjson']);
        assert.equal(named.code, 5, explain(named));
        assert.match(named.stderr, /plan_restricted: /);
        assert.deepEqual(
          fs.readdirSync(path.join(s.home, 'export-plan-named')),
          ['frameworks.ndjson'],
          'the finished file stays, the unfinished one is removed',
        );
      });

      it('Ctrl-C while waiting for the rate limit exits 130 and leaves no temporary file', async () => {
        // One request a minute: the walk waits before every resource after the first, and is
        // interrupted at the first wait of 2 s or more. (With three a minute the six resources could
        // fit in two windows whose only wait fell under 2 s near a minute's end: the export then
        // finished without being interrupted.)
        const slow: TestServer = await startServer({
          database: s.server.database,
          env: { ...GENEROUS_LIMITS, RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SEC: '60' },
        });
        try {
          const dir = path.join(s.home, 'export-interrupted');
          let sent = false;
          const res = await runCli(['export', '--dir', dir, '--progress'], {
            home: s.home,
            env: { ...s.envFor(), COMPLIANCE_BASE_URL: slow.url },
            onStderr: (text, child) => {
              // `text` is all of stderr so far: look at every wait, not only the first (which can be
              // under 2 s near a window's end; the export then waited out whole minutes)
              const waits = [...text.matchAll(/waiting (\d+) s for the rate-limit window/g)].map((m) => Number(m[1]));
              if (!sent && waits.some((seconds) => seconds >= 2)) {
                sent = true;
                child.kill('SIGINT');
              }
            },
          });
          assert.ok(sent, `the export waited for the window\n${explain(res)}`);
          assert.equal(res.code, 130, explain(res));
          assert.match(res.stderr, /compliance: interrupted/);
          assert.equal(res.stdout, '');
          const left = fs.readdirSync(dir);
          assert.ok(left.length < RESOURCES.length, 'stopped before the end');
          assert.deepEqual(
            left.filter((f) => !/^[a-z]+\.ndjson$/.test(f)),
            [],
            'no temporary file is left',
          );
        } finally {
          await slow.close();
        }
      });
    });
  }
});
