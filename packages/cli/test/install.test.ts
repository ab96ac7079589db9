// How people get the clients today, the way they do it: `npm pack` makes the two tarballs (the
// root's `npm run pack`), `npm install -g <tarball>` into a temporary prefix gives a working
// `compliance` offline (the bundle has no dependency to fetch), the SDK tarball loads through both
// `require` and `import` and talks to the real service, and in the repository `npx compliance`
// runs the command from the caller's directory with nothing but the result on stdout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCliService, type CliService } from './support/service.ts';

const exec = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI_VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;
// The project's Node.js 24 first on PATH, as npx and npm scripts do; npm itself is found after it.
const PATH_WITH_NODE = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `env` replaces the environment but for PATH and HOME. */
function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string>; home: string }): Promise<Run> {
  const env: Record<string, string> = { PATH: PATH_WITH_NODE, HOME: options.home, npm_config_cache: path.join(options.home, '.npm') };
  // npm reads the developer's and the machine's settings; the tests want its defaults.
  env.npm_config_userconfig = path.join(options.home, '.npmrc');
  Object.assign(env, options.env);
  const child = spawn(file, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const explain = (r: Run) => `exit ${r.code}\n--- stdout:\n${r.stdout.slice(0, 2000)}\n--- stderr:\n${r.stderr.slice(0, 3000)}`;

describe('installing the clients from their tarballs', { concurrency: 1 }, () => {
  let tmp: string;
  let home: string;
  let packs: string;
  let s: CliService;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compliance-install-'));
    home = path.join(tmp, 'home');
    packs = path.join(tmp, 'packs');
    fs.mkdirSync(home);
    fs.mkdirSync(packs);
    // What `npm run pack` runs, with the tarballs written outside the repository.
    const packed = await run('npm', ['pack', '--workspace', 'packages/sdk', '--workspace', 'packages/cli', '--pack-destination', packs], {
      cwd: REPO,
      home,
    });
    assert.equal(packed.code, 0, explain(packed));
    s = await startCliService('sqlite');
  });
  after(async () => {
    await s?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const tarball = (name: 'cli' | 'sdk') => path.join(packs, `compliance-data-${name}-${CLI_VERSION}.tgz`);

  it('the tarballs hold the license, the changelog and no runtime dependencies', async () => {
    for (const name of ['cli', 'sdk'] as const) {
      const { stdout } = await exec('tar', ['-tzf', tarball(name)]);
      const files = stdout.trim().split('\n');
      for (const f of ['package/LICENSE', 'package/CHANGELOG.md', 'package/README.md', 'package/package.json'])
        assert.ok(files.includes(f), `${name}: ${f} in ${files.join(', ')}`);
      const manifest = JSON.parse((await exec('tar', ['-xzOf', tarball(name), 'package/package.json'])).stdout) as Record<string, unknown>;
      assert.equal(manifest.license, 'Apache-2.0');
      assert.equal(manifest.dependencies, undefined, `${name} must install with nothing to fetch`);
      assert.ok(!files.some((f) => f.startsWith('package/src/')), `${name} ships no TypeScript source`);
    }
    assert.match(
      fs.readFileSync(path.join(REPO, 'LICENSE'), 'utf8'),
      /Apache License\s+Version 2\.0, January 2004[\s\S]+END OF TERMS AND CONDITIONS/,
    );
  });

  it('npm install -g <tarball> into an empty prefix, offline, gives a working compliance', async () => {
    const prefix = path.join(tmp, 'prefix');
    const installed = await run(
      'npm',
      ['install', '--global', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball('cli')],
      {
        cwd: tmp,
        home,
      },
    );
    assert.equal(installed.code, 0, explain(installed));
    const bin = path.join(prefix, 'bin', 'compliance');

    const version = await run(bin, ['--version'], { cwd: tmp, home });
    assert.equal(version.code, 0, explain(version));
    assert.equal(version.stdout, `compliance ${CLI_VERSION}\n`);
    assert.equal(version.stderr, '');

    // The installed bundle does real work: a token, a list, JSON on stdout.
    const list = await run(bin, ['frameworks', 'list', '-o', 'json'], { cwd: tmp, home, env: s.envFor() });
    assert.equal(list.code, 0, explain(list));
    const frameworks = JSON.parse(list.stdout) as Array<{ frameworkName: string }>;
    assert.deepEqual(
      frameworks.map((f) => f.frameworkName).sort(),
      (await s.sdk.frameworks.list()).data.map((f) => f.frameworkName).sort(),
    );
  });

  it('the SDK tarball loads with require() and with import, and both talk to the service', async () => {
    const project = path.join(tmp, 'sdk-user');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "sdk-user", "private": true }\n');
    const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball('sdk')], { cwd: project, home });
    assert.equal(installed.code, 0, explain(installed));
    const program = (load: string) => `${load}
const client = new ComplianceClient({ baseUrl: process.env.URL, clientId: process.env.ID, clientSecret: process.env.SECRET });
client.frameworks.list().then((r) => console.log(JSON.stringify({ kind: typeof module, count: r.data.length, version: SDK_VERSION, errors: typeof ConnectionError })));`;
    const env = { URL: s.server.url, ID: s.readOnly.clientId, SECRET: s.readOnly.clientSecret };
    fs.writeFileSync(
      path.join(project, 'use.cjs'),
      program("const { ComplianceClient, SDK_VERSION, ConnectionError } = require('@compliance-data/sdk');"),
    );
    fs.writeFileSync(
      path.join(project, 'use.mjs'),
      program("import { ComplianceClient, SDK_VERSION, ConnectionError } from '@compliance-data/sdk';"),
    );
    const expected = (await s.sdk.frameworks.list()).data.length;
    for (const [file, kind] of [
      ['use.cjs', 'object'],
      ['use.mjs', 'undefined'],
    ]) {
      const r = await run(process.execPath, [file], { cwd: project, home, env });
      assert.equal(r.code, 0, explain(r));
      assert.deepEqual(JSON.parse(r.stdout), { kind, count: expected, version: CLI_VERSION, errors: 'function' }, file);
    }
    // Each entry has its declarations, of its own module kind.
    const sdkDir = path.join(project, 'node_modules/@compliance-data/sdk');
    const manifest = JSON.parse(fs.readFileSync(path.join(sdkDir, 'package.json'), 'utf8')) as {
      exports: { '.': Record<'import' | 'require', { types: string; default: string }> };
    };
    for (const condition of ['import', 'require'] as const) {
      const entry = manifest.exports['.'][condition];
      assert.ok(fs.existsSync(path.join(sdkDir, entry.types)), entry.types);
      assert.ok(fs.existsSync(path.join(sdkDir, entry.default)), entry.default);
    }
    assert.equal(JSON.parse(fs.readFileSync(path.join(sdkDir, 'dist/cjs/package.json'), 'utf8')).type, 'commonjs');
  });

  it("the getting-started page's SDK quickstart runs twice (the write replays), and without a service ends in one line, not a stack", async () => {
    const project = path.join(tmp, 'sdk-user');
    fs.copyFileSync(path.join(REPO, 'examples/quickstart.mjs'), path.join(project, 'quickstart.mjs'));
    const env = {
      COMPLIANCE_BASE_URL: s.server.url,
      COMPLIANCE_CLIENT_ID: s.readWrite.clientId,
      COMPLIANCE_CLIENT_SECRET: s.readWrite.clientSecret,
    };
    const first = await run(process.execPath, ['quickstart.mjs'], { cwd: project, home, env });
    assert.equal(first.code, 0, explain(first));
    assert.match(first.stdout, /: controls \d+%\n/);
    assert.match(first.stdout, /\d+ protect controls are non-compliant\n\d+ critical findings\napi%23VUL-9043 replayed: false\n$/);
    const second = await run(process.execPath, ['quickstart.mjs'], { cwd: project, home, env });
    assert.match(second.stdout, /api%23VUL-9043 replayed: true\n$/);

    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const down = await run(process.execPath, ['quickstart.mjs'], {
      cwd: project,
      home,
      env: { ...env, COMPLIANCE_BASE_URL: `http://127.0.0.1:${port}` },
    });
    assert.equal(down.code, 1, explain(down));
    assert.equal(down.stdout, '');
    assert.equal(
      down.stderr,
      `cannot reach http://127.0.0.1:${port}: connection refused: is the service running? (COMPLIANCE_BASE_URL sets the address)\n`,
    );
  });

  it('npx compliance in the repository: the result alone on stdout, paths from the caller’s directory', async () => {
    // examples/finding.json is the example of docs/getting-started.md and docs/cli.md; run from examples/ with a relative path.
    const env = { ...s.envFor(s.readWrite), COMPLIANCE_TOKEN_CACHE: '0' };
    const args = ['compliance', 'vulns', 'create', '--file', 'finding.json', '--idempotency-key', 'npx-example-9050', '-o', 'json'];
    const first = await run('npx', args, { cwd: path.join(REPO, 'examples'), home, env });
    assert.equal(first.code, 0, explain(first));
    const created = JSON.parse(first.stdout) as { vulnerabilityId: string };
    assert.equal(created.vulnerabilityId, 'api%23VUL-9050');
    // Running the page's command again replays it (same key, same file).
    const again = await run('npx', args, { cwd: path.join(REPO, 'examples'), home, env });
    assert.equal(again.code, 0, explain(again));
    assert.deepEqual(JSON.parse(again.stdout), created);
  });
});
