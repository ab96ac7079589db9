// The production start as the image and the systemd unit run it (docs/deployment.md): `npm run
// build` into a folder that then holds only the build (dist/), package.json and the production
// dependencies (`npm ci --omit=dev`, as the Dockerfile installs them). No TypeScript source, no
// compiler, no esbuild: `node dist/main.js` starts on the embedded default, serves a token, a list
// and the console bundled at build time, `node dist/cli/main.js` works on its database, and
// SIGTERM stops it with exit code 0.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { printedCredential, runCli, startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';
import { api, getToken } from '../harness/server.ts';
import pkg from '../../package.json' with { type: 'json' };

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('the production build (dist/) with production dependencies only', () => {
  let app: string;
  let data: string;
  let server: ServerProcess | undefined;
  const cds = (...args: string[]) => runCli(args, { DATA_DIR: data }, { entry: path.join(app, 'dist/cli/main.js'), cwd: app });

  before(async () => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-prod-'));
    data = path.join(app, 'data');
    await run(process.execPath, [path.join(ROOT, 'scripts/build.ts'), path.join(app, 'dist')], { cwd: ROOT });
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(app, file));
    // the Dockerfile's install; the npm cache of the `npm ci` before the tests makes it quick
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--workspaces=false', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      timeout: 240_000,
    });
  });
  after(async () => {
    await server?.kill();
    fs.rmSync(app, { recursive: true, force: true });
  });

  it('holds no TypeScript and no build tool', () => {
    const built = filesUnder(path.join(app, 'dist'));
    assert.ok(built.includes('main.js') && built.includes(path.join('cli', 'main.js')), built.join('\n'));
    assert.deepEqual(
      built.filter((f) => !/\.(js|json|css|html)$/.test(f)),
      [],
      'only JavaScript and the console bundle',
    );
    assert.deepEqual(
      ['esbuild', 'typescript', 'preact', '@biomejs'].filter((name) => fs.existsSync(path.join(app, 'node_modules', name))),
      [],
      'no build tool or dev dependency installed',
    );
    assert.ok(!fs.existsSync(path.join(app, 'src')));
  });

  it('`node dist/main.js` starts on the embedded default: /readyz, a token for the printed credential, a /v1 list, /healthz with the version', async () => {
    server = await startServerProcess({
      entry: path.join(app, 'dist/main.js'),
      cwd: app,
      demoOnEmpty: true,
      env: { DATA_DIR: data, NODE_ENV: 'production', LOG_FORMAT: 'json' },
    });
    assert.deepEqual((await api(server.url, '/readyz')).body, { status: 'ready' });
    assert.deepEqual((await api(server.url, '/healthz')).body, { status: 'ok', version: pkg.version });
    const out = await waitForOutput(server, /Read & Write\s+client_id=\S+\s+client_secret=\S+/, 30_000);
    const token = await getToken(server.url, printedCredential(out, 'Read Only'));
    const list = await api(server.url, '/v1/frameworks', token);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.ok(list.body.data.length > 0, 'the demo frameworks are listed');
  });

  it('serves the console bundled at build time (esbuild is not installed)', async () => {
    const page = await fetch(`${server!.url}/console`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const script = /<script type="module" src="(\/console\/assets\/app-[A-Z0-9]+\.js)"><\/script>/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(server!.url + script);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
    const onDisk = fs.readFileSync(path.join(app, 'dist/console/bundle', path.basename(script)));
    assert.ok(Buffer.from(await asset.arrayBuffer()).equals(onDisk), 'the file the build wrote');
  });

  it('`node dist/cli/main.js` (cds) works on the same database', async () => {
    const version = await cds('version');
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, new RegExp(`^compliance-data-service ${pkg.version.replaceAll('.', '\\.')}$`, 'm'));
    const orgs = await cds('org', 'list', '--json');
    assert.equal(orgs.code, 0, orgs.stderr);
    assert.deepEqual(
      JSON.parse(orgs.stdout).map((o: { name: string }) => o.name),
      ['Demo Organization'],
    );
  });

  it('stops on SIGTERM with exit code 0', async () => {
    assert.deepEqual(await server!.stop('SIGTERM', 15_000), { code: 0, signal: null }, server!.stderr());
  });
});
