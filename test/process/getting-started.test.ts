// docs/getting-started.md, run as a reader would: every `sh`/`bash` block of the page, in order, in
// one bash session at the repository's root, against a fresh server (a child process on an empty
// data folder, so the demo is loaded as on a first `npm start`). The page says how it is tested
// ("How this page is tested"): the documented address is replaced by the server's, DATA_DIR points
// `npm run cds` at the server's database, HOME is a temporary folder, and a block preceded by
// `<!-- not run by the docs test: … -->` is skipped. A block fails on a non-zero exit or an error
// body; the run must leave the repository's files as they were.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = path.join(ROOT, 'docs/getting-started.md');
const DOCUMENTED_URL = 'http://127.0.0.1:3000';
const SKIP_MARK = '<!-- not run by the docs test';
const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
const hasGit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--is-inside-work-tree'], { stdio: 'ignore' }).status === 0;

interface Block {
  /** 1-based line of the opening fence, for messages */
  line: number;
  code: string;
  skipped: boolean;
}

/** The page's shell blocks, in order, each marked skipped when the line before its fence says so. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\S*)/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1]) && l.trim() === fence[1]);
    assert.ok(end > i, `the block at line ${i + 1} is closed`);
    if (['sh', 'bash'].includes(fence[2])) {
      let previous = i - 1;
      while (previous >= 0 && lines[previous].trim() === '') previous--;
      blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), skipped: lines[previous]?.startsWith(SKIP_MARK) ?? false });
    }
    i = end;
  }
  return blocks;
}

/** The repository's changed and untracked files, as git reports them. */
const gitStatus = () => spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' }).stdout;

describe('docs/getting-started.md', { skip: hasCurl ? false : 'curl is not installed' }, () => {
  let server: ServerProcess;
  let dataDir: string;
  let home: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-getting-started-data-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-getting-started-home-'));
    // As `npm start` on a first run: the embedded database, the demo loaded; the test's own port.
    server = await startServerProcess({ demoOnEmpty: true, env: { DATA_DIR: dataDir, OPS_PORT: 'off' } });
    await waitForOutput(server, /"msg":"Ready: /, 120_000);
  });
  after(async () => {
    await server?.stop();
    for (const dir of [dataDir, home]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('skips only the install-and-start block, which the test replaces by its own server', () => {
    const blocks = shellBlocks(fs.readFileSync(PAGE, 'utf8'));
    assert.deepEqual(
      blocks.filter((b) => b.skipped).map((b) => b.code),
      ['npm ci && npm start'],
    );
    assert.ok(blocks.filter((b) => !b.skipped).length >= 10, 'the page has its commands in sh blocks');
  });

  it('runs every command of the page as written, in order, without an error', { timeout: 300_000 }, async () => {
    const blocks = shellBlocks(fs.readFileSync(PAGE, 'utf8')).filter((b) => !b.skipped);
    const marker = (n: number) => `::docs-block ${n}::`;
    const script = [
      'set -euo pipefail',
      // On a line of its own: curl's answers end without a newline.
      ...blocks.flatMap((b, n) => [
        `printf '\\n${marker(n)}\\n'; printf '\\n${marker(n)}\\n' >&2`,
        b.code.replaceAll(DOCUMENTED_URL, server.url),
      ]),
      `printf '\\n${marker(blocks.length)}\\n'`,
    ].join('\n');

    // The reader's shell: PATH without the test runner's node_modules/.bin (npm, npx and the system
    // Node.js remain), and nothing of the runner's environment but what the page relies on.
    const PATH = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => !dir.split(path.sep).includes('node_modules'))
      .join(path.delimiter);
    const env = { PATH, HOME: home, LANG: process.env.LANG ?? 'C.UTF-8', DATA_DIR: dataDir, npm_config_update_notifier: 'false' };
    const before = hasGit ? gitStatus() : '';

    // Asynchronously: the server is a child process, but the test's timers must keep running.
    const result = await promisify(execFile)('bash', ['-c', script], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({
        code: err.code ?? -1,
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }),
    );
    const outputs = result.stdout.split(/^::docs-block (\d+)::\n/m);
    // split gives ['', '0', out0, '1', out1, …]: the block numbers reached and what each printed.
    const reached = outputs.filter((_, i) => i % 2 === 1).map(Number);
    const last = reached.at(-1) ?? 0;
    const explain = (n: number) => {
      const block = blocks[Math.min(n, blocks.length - 1)];
      const stderr = result.stderr.split(marker(n))[1]?.split('::docs-block')[0] ?? result.stderr;
      return `block at line ${block.line} of docs/getting-started.md:\n${block.code}\n--- stdout:\n${outputs[2 * reached.indexOf(n) + 2]?.slice(0, 2000)}\n--- stderr:\n${stderr.slice(-2000)}`;
    };
    assert.equal(result.code, 0, `a command failed (exit ${result.code}) in the ${explain(last)}`);
    assert.equal(last, blocks.length, 'every block ran');
    for (const n of reached.slice(0, -1)) {
      const out = outputs[2 * reached.indexOf(n) + 2];
      assert.ok(!/"error":\s*\{/.test(out), `an error body in the ${explain(n)}`);
    }

    // What the page shows the reader is what they get.
    assert.match(result.stdout, /"access_token":"cds_at_/);
    assert.match(result.stdout, /50 of 179, next: [\w-]+\.[\w-]+\n/);
    assert.match(result.stdout, /"vulnerabilityId":"api%23VUL-9042"/);
    assert.match(result.stdout, /"reportLink":"https:\/\/reports\.example\.com\/VUL-9042"/);
    assert.match(result.stdout, /"type":"vulnerability\.created"/);
    assert.match(result.stdout, /17 protect controls are non-compliant\n36 critical findings\napi%23VUL-9043 replayed: false\n/);
    assert.match(result.stdout, /vulnerabilities\.ndjson/);
    if (hasGit) assert.equal(gitStatus(), before, 'the page leaves the repository as it was');
  });
});
