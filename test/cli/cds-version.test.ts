// `cds version` / `cds --version`: the release installed (package.json's version) and the Node.js
// under it, what an operator checks after an upgrade; it needs no database, so it answers even
// where the configuration is broken.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../harness/process.ts';
import pkg from '../../package.json' with { type: 'json' };

describe('cds version', () => {
  it('prints the service version and the Node.js version', async () => {
    const res = await runCli(['version']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `compliance-data-service ${pkg.version}\nnode ${process.versions.node}\n`);
  });

  it('--json prints {"version","node"}; `cds --version` is the same command', async () => {
    const res = await runCli(['version', '--json']);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), { version: pkg.version, node: process.versions.node });
    const flag = await runCli(['--version', '--json']);
    assert.deepEqual(JSON.parse(flag.stdout), { version: pkg.version, node: process.versions.node });
  });

  it('answers with a configuration that every other command refuses, and opens no database', async () => {
    const broken = { DATABASE_URL: 'mysql://nowhere', REGION: 'mars' };
    assert.equal((await runCli(['org', 'list'], broken)).code, 78, 'the configuration is refused elsewhere');
    const res = await runCli(['version'], broken);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`^compliance-data-service ${pkg.version.replaceAll('.', '\\.')}\\n`));
  });

  it('is listed in `cds --help`', async () => {
    const res = await runCli(['--help']);
    assert.match(res.stdout, /^ {2}version \[--json\] +print the version of the service and of Node\.js$/m);
  });
});
