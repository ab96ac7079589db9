// The commands of docs/scanner-imports.md, run as written against the real service: the command
// block from the repository's root (its printed summary and table rows are the page's), the pipe
// from a scanner, the `--json` answer (the page's JSON, exactly), a refusal's message, and the import
// line of the GitHub Actions job with the workflow's expressions filled in. `compliance` is this
// checkout's command on PATH; Trivy is not installed here, so a `trivy` on PATH prints the example
// report the page's first commands import (the service, its database and the CLI are all real).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_ENTRY } from './support/cli.ts';
import { startCliService, type CliService } from './support/service.ts';
import { createOrgWithCredential } from '../../../test/harness/server.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGE = fs.readFileSync(path.join(REPO, 'docs/scanner-imports.md'), 'utf8');
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');

/** The fenced blocks of `lang` in the section that starts with `heading`, in order. */
function blocks(heading: string, lang: string, page = PAGE): string[] {
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start > 0, `the page has "## ${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
}

/** Shell lines of a block, continuation lines joined. */
const commands = (block: string) =>
  block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((l) => l.trim() !== '');

describe('the commands of docs/scanner-imports.md', { concurrency: 1 }, () => {
  let s: CliService;
  let bin: string;
  let sh: (command: string, cwd?: string, more?: Record<string, string>) => Promise<{ stdout: string; stderr: string }>;
  before(async () => {
    s = await startCliService('sqlite', { demo: false });
    bin = fs.mkdtempSync(path.join(s.home, 'bin-'));
    fs.writeFileSync(path.join(bin, 'compliance'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'trivy'), `#!/bin/sh\nexec cat "${path.join(REPO, 'examples/trivy-image.json')}"\n`, { mode: 0o755 });
    const env = { ...s.envFor(s.readWrite), PATH: `${bin}:${process.env.PATH}`, HOME: s.home, COLUMNS: '100' };
    // Asynchronously: the service runs in this process and must answer while the shell waits.
    sh = (command, cwd = REPO, more = {}) =>
      promisify(execFile)('bash', ['-o', 'pipefail', '-c', command], { cwd, env: { ...env, ...more }, encoding: 'utf8' });
  });
  after(() => s?.close());

  it("the README's section, in an organization of its own: the scanner's report in, then on the list and the feed", async () => {
    const org = await createOrgWithCredential(s.server.system, { accessLevel: 'read_write', name: 'README' });
    const as = { COMPLIANCE_CLIENT_ID: org.clientId, COMPLIANCE_CLIENT_SECRET: org.clientSecret };
    const heading = 'Findings from the scanners you already run';
    const [pipe, list, feed] = commands(blocks(heading, 'sh', README)[0]);
    const [summary] = blocks(heading, 'text', README);
    // A pipe, not a terminal: the answer as JSON, whose counts are the summary the README shows.
    const answer = JSON.parse((await sh(pipe, REPO, as)).stdout);
    const counts = (['created', 'updated', 'closed', 'reopened', 'unchanged'] as const).map((k) => `${answer[k]} ${k}`).join(', ');
    assert.equal(`imported ${answer.format} (4.4 KiB) into scope ${answer.scope}, source ${answer.source}\n${counts}\n`, summary);
    const listed = (await sh(list, REPO, as)).stdout;
    assert.match(listed, /import%23GHSA-grv7-fg5c-xmjg~braces~\S+ +high +open/);
    const events = (await sh(feed, REPO, as)).stdout;
    assert.equal(events.split('\n').filter((l) => l.includes('vulnerability.created')).length, 5);
  });

  it('the first block, from the repository root: the summary, the list and the feed the page shows', async () => {
    const [run] = blocks('From the command line', 'sh');
    const [importLine, listLine, eventsLine] = commands(run);
    const [summary, listed, feed] = blocks('From the command line', 'text');
    assert.equal((await sh(importLine)).stdout, summary);
    const list = (await sh(listLine)).stdout;
    for (const line of listed.split('\n').filter((l) => l && l !== '…'))
      assert.ok(list.includes(line), `the list has:\n${line}\n---\n${list}`);
    const events = (await sh(eventsLine)).stdout;
    const rows = feed.split('\n').filter((l) => /^\d{4}-/.test(l));
    assert.ok(rows.length > 0);
    for (const row of rows) {
      const rest = row.slice('2026-11-27 07:33 UTC'.length);
      assert.ok(events.includes(rest), `the feed has:\n${rest}\n---\n${events}`);
    }
  });

  it('the pipe from the scanner, and the --json answer the page prints', async () => {
    const [, pipe, json] = blocks('From the command line', 'sh');
    const piped = await sh(commands(pipe)[0]);
    assert.equal(JSON.parse(piped.stdout).unchanged, 7, 'the same report again: nothing changed');
    const answer = await sh(commands(json)[0]);
    assert.deepEqual(JSON.parse(answer.stdout), JSON.parse(blocks('From the command line', 'json')[0]));
    assert.match(answer.stderr, /0 created, 0 updated, 0 closed, 0 reopened, 7 unchanged/);
  });

  it('the refusal the page quotes', async () => {
    const quoted = blocks('Refusals, retries and limits', 'text')[0]
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const res = await sh('compliance vulns import --format grype examples/trivy-image.json').then(
      () => assert.fail('the import should be refused'),
      (err: { code: number; stderr: string }) => err,
    );
    assert.equal(res.code, 6);
    for (const line of quoted) assert.ok(res.stderr.includes(line), `stderr has:\n${line}\n---\n${res.stderr}`);
  });

  it("the GitHub Actions job's import step, the workflow's expressions filled in", async () => {
    const [workflow] = blocks('In CI: a GitHub Actions job', 'yaml');
    const image = /IMAGE: (\S+)/.exec(workflow)?.[1];
    assert.ok(image);
    const step = workflow.slice(workflow.indexOf('- name: Import the findings'));
    const line = commands(step.slice(step.indexOf('run: |') + 'run: |'.length))[0].trim();
    assert.match(line, /^compliance vulns import --format trivy /);
    const command = line.replace(/\$\{\{ github\.run_id \}\}/, '4242').replace(/\$\{\{ github\.run_attempt \}\}/, '1');
    assert.ok(!/\$\{\{/.test(command), `every expression filled in: ${command}`);
    const cwd = fs.mkdtempSync(path.join(s.home, 'job-'));
    fs.copyFileSync(path.join(REPO, 'examples/trivy-image.json'), path.join(cwd, 'trivy.json'));
    const run = () => sh(`export IMAGE=${image}\n${command}`, cwd);
    const first = await run();
    assert.match(
      first.stdout,
      new RegExp(
        `^imported trivy \\(4\\.4 KiB\\) into scope ${image.replace(/\./g, '\\.')}, source import\\n0 created, 0 updated, 0 closed, 0 reopened, 7 unchanged\\n$`,
      ),
    );
    const again = await run();
    assert.equal(again.stdout, first.stdout, 'the step run twice: the first answer');
    assert.match(again.stderr, /answered from the stored response/);
  });
});
