// deploy/systemd/compliance-data.service: systemd's own checker accepts every line of it, it runs
// the built JavaScript (not the TypeScript source) as the dedicated user, and its hardening keeps
// systemd's exposure score low. Skipped where systemd-analyze is not installed (apt: systemd).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT = path.join(ROOT, 'deploy/systemd/compliance-data.service');
const INSTALL_DIR = '/opt/compliance-data';

function hasSystemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function analyze(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('systemd-analyze', args, { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === 'number' ? err.code : err ? 1 : 0, stdout, stderr }),
    );
  });
}

/**
 * The unit as installed on this machine: `verify` checks that ExecStart's program exists, so the
 * install folder points at this checkout and Node.js at the one running the tests.
 */
function installedCopy(): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-unit-'));
  const text = fs
    .readFileSync(UNIT, 'utf8')
    .replace(`${INSTALL_DIR}/node_modules/node/bin/node`, process.execPath)
    .replaceAll(INSTALL_DIR, ROOT);
  const file = path.join(dir, 'compliance-data.service');
  fs.writeFileSync(file, text);
  return { dir, file };
}

const skip = hasSystemdAnalyze() ? false : 'systemd-analyze is not installed (apt-get install systemd)';

describe('the systemd unit', () => {
  it('runs dist/main.js with the Node.js of its node_modules, as the user cds, with an EnvironmentFile', () => {
    const unit = fs.readFileSync(UNIT, 'utf8');
    assert.match(unit, /^ExecStart=\/opt\/compliance-data\/node_modules\/node\/bin\/node \/opt\/compliance-data\/dist\/main\.js$/m);
    assert.match(unit, /^User=cds$/m);
    assert.match(unit, /^EnvironmentFile=\/etc\/compliance-data\/env$/m);
    assert.doesNotMatch(unit, /src\/main\.ts/);
  });

  it('passes `systemd-analyze verify` without a warning', { skip }, async () => {
    const { dir, file } = installedCopy();
    try {
      const res = await analyze(['verify', file]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stderr.trim(), '', 'no unknown key or bad value');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has an exposure score of 2.0 or lower (`systemd-analyze security`: 0 is most restricted, 10 least)', { skip }, async () => {
    const { dir, file } = installedCopy();
    try {
      const res = await analyze(['security', '--offline=true', '--no-pager', file]);
      const score = /Overall exposure level for compliance-data\.service: ([\d.]+)/.exec(res.stdout + res.stderr)?.[1];
      assert.ok(score, res.stdout + res.stderr);
      assert.ok(Number(score) <= 2, `exposure ${score}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
