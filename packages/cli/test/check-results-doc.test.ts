// The README's section "A Prowler scan flips a SOC 2 control", run as written against the real
// service in an organization of its own: the program applied, the two scans imported (the summaries
// the README prints, exactly), then the feed's events the README shows (their types and data; the
// IDs and times are this run's). `compliance` is this checkout's command on PATH (`npx` dropped);
// Prowler is not installed here, so a `prowler` on PATH does nothing and the README's example
// reports stand for its output (the service, its database and the CLI are all real).
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
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const HEADING = 'A Prowler scan flips a SOC 2 control';

/** The fenced blocks of `lang` in the README's section, in order. */
function blocks(lang: string): string[] {
  const start = README.indexOf(`\n## ${HEADING}\n`);
  assert.ok(start > 0, `the README has "## ${HEADING}"`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
}

const commands = (block: string) =>
  block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').replace(/^npx /, ''))
    .filter((l) => l.trim() !== '');

describe("the README's Prowler section", { concurrency: 1 }, () => {
  let s: CliService;
  let sh: (command: string) => Promise<{ stdout: string; stderr: string }>;
  before(async () => {
    s = await startCliService('sqlite', { demo: false });
    const bin = fs.mkdtempSync(path.join(s.home, 'bin-'));
    fs.writeFileSync(path.join(bin, 'compliance'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'prowler'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const org = await createOrgWithCredential(s.server.system, { accessLevel: 'read_write', name: 'Acme' });
    const env = { ...s.envFor(org), PATH: `${bin}:${process.env.PATH}`, HOME: s.home, COLUMNS: '100' };
    sh = (command) => promisify(execFile)('bash', ['-o', 'pipefail', '-c', command], { cwd: REPO, env, encoding: 'utf8' });
  });
  after(() => s?.close());

  it('applies the program, imports both scans as the README prints them, and the control flips on the feed', async () => {
    const [first, second] = blocks('sh').map(commands);
    const [summary1, summary2] = blocks('text');
    const [apply, prowler, import1] = first;
    await sh(apply);
    await sh(prowler);
    assert.equal((await sh(import1)).stdout, summary1);
    const [import2, feed] = second;
    assert.equal((await sh(import2)).stdout, summary2);
    const shown = blocks('json')[0]
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replaceAll(',…', '')));
    const events = (await sh(feed)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.before?.controls?.compliant ?? e.data.before, e.data.after?.controls?.compliant ?? e.data.after]),
      shown.map((e) => [e.type, e.data.before?.controls?.compliant ?? e.data.before, e.data.after?.controls?.compliant ?? e.data.after]),
    );
    assert.equal(events[1].data.cause.type, 'test.status_changed');
    assert.match(events[0].resourceId, /^test_s3_encryption_/);
  });
});
