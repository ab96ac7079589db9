// The container image (Dockerfile) run for real with podman: it starts as an unprivileged user on
// its embedded default with the data folder a volume, answers /readyz, serves a token for the demo
// credential it printed and a /v1 list, runs `cds` inside, passes its own HEALTHCHECK, stops on
// SIGTERM with exit code 0, and a new container on the same volume finds the data again.
// It needs the image: CDS_IMAGE names it. .ci/image-test builds it (from bases made from Debian's
// packages, no registry needed) and runs this file; without CDS_IMAGE or podman it is skipped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { printedCredential } from '../harness/process.ts';
import { api, getToken } from '../harness/server.ts';
import pkg from '../../package.json' with { type: 'json' };

const IMAGE = process.env.CDS_IMAGE;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman ARGS…` and resolves with its exit code and output (never rejects on a non-zero exit). */
function podman(args: string[], timeoutMs = 60_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile('podman', args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

async function ok(args: string[], timeoutMs?: number): Promise<string> {
  const res = await podman(args, timeoutMs);
  assert.equal(res.code, 0, `podman ${args.join(' ')} exited ${res.code}\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

async function podmanMissing(): Promise<boolean> {
  return podman(['--version']).then(
    () => false,
    () => true,
  );
}

const skip = IMAGE === undefined ? 'CDS_IMAGE is not set (.ci/image-test builds the image and runs this file)' : false;

/** A container of the image on `volume`, its API and ops ports published on loopback. */
async function startContainer(name: string, volume: string) {
  await ok([
    'run',
    '--detach',
    '--name',
    name,
    '--publish',
    '127.0.0.1::3000',
    '--publish',
    '127.0.0.1::9090',
    '--volume',
    `${volume}:/data`,
    IMAGE!,
  ]);
  const port = async (inside: number) => (await ok(['port', name, `${inside}/tcp`])).trim().split(':').pop();
  const url = `http://127.0.0.1:${await port(3000)}`;
  const opsUrl = `http://127.0.0.1:${await port(9090)}`;
  // ready within 60 s: the first start migrates and loads the demo organization
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) assert.fail(`/readyz did not answer 200 within 60 s:\n${await logs(name)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, opsUrl };
}

async function logs(name: string): Promise<string> {
  const res = await podman(['logs', name]);
  return res.stdout + res.stderr;
}

describe('the container image', { skip }, () => {
  const id = randomUUID().slice(0, 8);
  const volume = `cds-image-test-${id}`;
  const first = `cds-image-test-${id}-1`;
  const second = `cds-image-test-${id}-2`;
  let url: string;
  let opsUrl: string;

  before(async () => {
    if (await podmanMissing()) throw new Error('CDS_IMAGE is set but podman is not installed');
    await ok(['volume', 'create', volume]);
    ({ url, opsUrl } = await startContainer(first, volume));
  });
  after(async () => {
    await podman(['rm', '--force', '--time', '0', first, second]);
    await podman(['volume', 'rm', '--force', volume]);
  });

  it('runs as an unprivileged user, with no TypeScript, compiler, esbuild or npm inside', async () => {
    assert.equal((await ok(['exec', first, 'id', '-u'])).trim(), '10001');
    const found = await ok([
      'exec',
      first,
      'sh',
      '-c',
      'find /app -name "*.ts" -not -path "*/node_modules/*"; ls -d /app/node_modules/esbuild /app/node_modules/typescript /app/src 2>/dev/null; command -v npm tsc esbuild; true',
    ]);
    assert.equal(found, '', 'nothing of the build tools');
  });

  it('answers /readyz, /healthz with the version, and a token and a /v1 list for the demo credential it printed', async () => {
    assert.deepEqual((await api(url, '/readyz')).body, { status: 'ready' });
    assert.deepEqual((await api(url, '/healthz')).body, { status: 'ok', version: pkg.version });
    const token = await getToken(url, printedCredential(await logs(first), 'Read Only'));
    const list = await api(url, '/v1/controls', token);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.ok(list.body.data.length > 0, 'the demo controls are listed');
    // the operations listener is a separate port of the container
    assert.deepEqual((await api(opsUrl, '/readyz')).body, { status: 'ready', checks: { database: 'sqlite', rateLimitStore: 'memory' } });
  });

  it('runs `cds` inside: its version, and a new credential that gets a token', async () => {
    assert.match(
      await ok(['exec', first, 'cds', 'version']),
      new RegExp(`^compliance-data-service ${pkg.version.replaceAll('.', '\\.')}\\n`),
    );
    const [org] = JSON.parse(await ok(['exec', first, 'cds', 'org', 'list', '--json']));
    const created = JSON.parse(
      await ok(['exec', first, 'cds', 'credential', 'create', '--org', org.id, '--access', 'read_only', '--json']),
    );
    const list = await api(url, '/v1/frameworks', await getToken(url, created));
    assert.equal(list.status, 200);
  });

  it('serves the console bundled at build time', async () => {
    const html = await (await fetch(`${url}/console`)).text();
    const script = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    assert.equal((await fetch(url + script)).status, 200);
  });

  it('passes its own HEALTHCHECK', async () => {
    const res = await podman(['healthcheck', 'run', first]);
    assert.equal(res.code, 0, res.stdout + res.stderr);
  });

  it('stops on SIGTERM with exit code 0 within 15 s', async () => {
    const started = Date.now();
    // `podman stop` sends the image's STOPSIGNAL (SIGTERM) and SIGKILLs only after --time
    await ok(['stop', '--time', '15', first], 30_000);
    const elapsed = Date.now() - started;
    assert.equal((await ok(['inspect', first, '--format', '{{.State.ExitCode}}'])).trim(), '0', await logs(first));
    assert.ok(elapsed < 15_000, `stopped after ${elapsed} ms`);
    assert.match(await logs(first), /"signal":"SIGTERM".*shutting down/);
  });

  it('keeps its data in the volume: a new container finds the organization and prints no new credentials', async () => {
    const again = await startContainer(second, volume);
    const orgs = JSON.parse(await ok(['exec', second, 'cds', 'org', 'list', '--json']));
    assert.deepEqual(
      orgs.map((o: { name: string }) => o.name),
      ['Demo Organization'],
    );
    assert.doesNotMatch(await logs(second), /client_secret=/);
    assert.equal((await api(again.url, '/readyz')).status, 200);
  });
});
