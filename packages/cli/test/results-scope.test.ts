// Test results and control scope through the CLI on each engine, as child processes against a real server: a CI job
// pushes a test result (`tests record-result`, resources from a file and from stdin) and the
// control flips on the feed (`events list`); a control goes out of scope and back
// (`controls update`); the refusals' exit codes; the help and the shell completion name them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';
import { fixtures } from '../../../test/harness/fixtures.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));

describe('compliance tests record-result and controls update', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let rw: (args: string[], input?: string) => Promise<CliResult>;
      let program: { controlId: string; testId: string; ignoredTestId: string };
      before(async () => {
        s = await startCliService(dialect, { demo: false });
        rw = (args, input) => s.cli(args, { client: s.readWrite, input });
        const base = fixtures(s.server.database.db, s.organizationId);
        await base.person('Ada', 'ada@example.com');
        await base.person('Bob', 'bob@example.com');
        const frameworkId = await base.framework('CLI Framework');
        const requirementId = await base.requirement(frameworkId, 'CLI-1');
        const controlId = await base.control('CLI-C', { requirementIds: [requirementId] });
        const testId = await base.test('fix_required');
        const ignoredTestId = await base.test('ignored');
        await base.map('test', testId, { controlIds: [controlId], requirementIds: [requirementId] });
        program = { controlId, testId, ignoredTestId };
      });
      after(async () => {
        await s?.close();
      });

      it('tests record-result flips the control; the feed shows it', async () => {
        const file = path.join(s.home, 'resources.json');
        fs.writeFileSync(
          file,
          JSON.stringify([{ resourceId: 'bucket-1', name: 'Logs bucket', status: 'fix_required', region: 'eu-west-1' }]),
        );
        const failing = await rw(['tests', 'record-result', program.testId, '--status', 'fix_required', '--resources', file, '-o', 'json']);
        const first = json(failing);
        assert.equal(first.status, 'fix_required');
        assert.deepEqual(
          first.resources.map((r: any) => [r.resourceId, r.region]),
          [['bucket-1', 'eu-west-1']],
        );
        assert.match(failing.stderr, new RegExp(`recorded a fix_required run of ${program.testId}: status fix_required`));

        // resources from stdin, as {"resources": [...]}
        const passing = await rw(
          ['tests', 'record-result', program.testId, '--status', 'passing', '--resources', '-', '--scanned-at', 'now', '-o', 'json'],
          JSON.stringify({ resources: [{ resourceId: 'bucket-1', name: 'Logs bucket', status: 'passing' }] }),
        );
        assert.equal(json(passing).status, 'passing');
        assert.equal(json(await s.cli(['controls', 'get', program.controlId, '-o', 'json'])).status, 'compliant');
        const events = ok(await s.cli(['events', 'list', '-o', 'ndjson']))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        const flip = events.find((e) => e.type === 'control.status_changed' && e.resourceId === program.controlId);
        assert.ok(flip, `the feed has the control's flip: ${JSON.stringify(events.map((e) => e.type))}`);
        assert.deepEqual(flip.data, {
          before: 'non_compliant',
          after: 'compliant',
          cause: { type: 'test.status_changed', resourceId: program.testId },
        });
      });

      it('record-result refusals: no status (exit 2), an ignored test (exit 6), an unknown test (exit 4), read-only (exit 5)', async () => {
        const none = await rw(['tests', 'record-result', program.testId]);
        assert.equal(none.code, 2, explain(none));
        assert.match(none.stderr, /--status passing\|fix_required/);
        const ignored = await rw(['tests', 'record-result', program.ignoredTestId, '--status', 'passing']);
        assert.equal(ignored.code, 6, explain(ignored));
        assert.match(ignored.stderr, /status/);
        const unknown = await rw(['tests', 'record-result', 'test_nope', '--status', 'passing']);
        assert.equal(unknown.code, 4, explain(unknown));
        const readOnly = await s.cli(['tests', 'record-result', program.testId, '--status', 'passing']);
        assert.equal(readOnly.code, 5, explain(readOnly));
        const notArray = await rw(['tests', 'record-result', program.testId, '--status', 'passing', '--resources', '-'], '{"a":1}');
        assert.equal(notArray.code, 2, explain(notArray));
      });

      it('controls update: out of scope with a reason, assignees, back in scope', async () => {
        const missing = await rw(['controls', 'update', program.controlId, '--scope', 'out_of_scope']);
        assert.equal(missing.code, 6, explain(missing));
        assert.match(missing.stderr, /outOfScopeReason/);
        const out = json(
          await rw([
            'controls',
            'update',
            program.controlId,
            '--scope',
            'out_of_scope',
            '--reason',
            'Retired',
            '--assignee',
            'bob@example.com',
            '--assignee',
            'ada@example.com',
            '-o',
            'json',
          ]),
        );
        assert.equal(out.controlScope, 'out_of_scope');
        assert.equal(out.outOfScopeReason, 'Retired');
        assert.equal(out.status, 'not_applicable');
        assert.deepEqual(
          out.assignees.map((a: any) => [a.email, a.isPrimary]),
          [
            ['bob@example.com', true],
            ['ada@example.com', false],
          ],
        );
        const back = json(await rw(['controls', 'update', program.controlId, '--scope', 'in_scope', '--clear-assignees', '-o', 'json']));
        assert.equal(back.controlScope, 'in_scope');
        assert.equal(back.outOfScopeReason, undefined);
        assert.deepEqual(back.assignees, []);
        const nothing = await rw(['controls', 'update', program.controlId]);
        assert.equal(nothing.code, 2, explain(nothing));
        const both = await rw(['controls', 'update', program.controlId, '--assignee', 'ada@example.com', '--clear-assignees']);
        assert.equal(both.code, 2, explain(both));
      });

      it('help and completion name the new commands and their flags', async () => {
        const help = ok(await s.cli(['tests', 'record-result', '--help']));
        for (const flag of ['--status', '--resources', '--scanned-at', '--idempotency-key'])
          assert.ok(help.includes(flag), `${flag} in ${help}`);
        const controlHelp = ok(await s.cli(['controls', 'update', '--help']));
        for (const flag of ['--scope', '--reason', '--assignee', '--clear-assignees']) assert.ok(controlHelp.includes(flag), flag);
        const bash = ok(await s.cli(['completion', 'bash']));
        assert.match(bash, /record-result/);
        assert.match(bash, /"controls update"\) flags="[^"]*--scope/);
        assert.match(bash, /"tests record-result:--status"/);
      });
    });
  }
});
