// The newcomer's path: `node src/main.ts` in an empty data directory loads the demo organization
// (DEMO_ON_EMPTY defaults to true for the embedded SQLite database), prints one Read Only and one
// Read & Write credential, and those work at once. A second start on the same file adds nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printedCredential, startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';
import { api, getToken, requestToken } from '../harness/server.ts';

describe('first start on an empty embedded database', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let first: ServerProcess | undefined;
  let second: ServerProcess | undefined;
  let readOnly: { clientId: string; clientSecret: string };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-start-'));
    // DEMO_ON_EMPTY unset: the default applies
    env = { DATA_DIR: dir, SQLITE_PATH: path.join(dir, 'cds.sqlite'), DEMO_ON_EMPTY: undefined };
  });

  after(async () => {
    await first?.kill();
    await second?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints a demo Read Only and a demo Read & Write credential', async () => {
    first = await startServerProcess({ env, cwd: dir, startTimeoutMs: 50_000 });
    // the credentials are printed right after the server starts listening, with its real port
    const out = await waitForOutput(first, /Read & Write\s+client_id=\S+\s+client_secret=\S+/);
    assert.match(out, new RegExp(`curl -s ${first.url}/oauth/token`));
    readOnly = printedCredential(out, 'Read Only');
    const readWrite = printedCredential(out, 'Read & Write');
    assert.notEqual(readOnly.clientId, readWrite.clientId);
    assert.match(out, /Demo organization/);
    // and where things are, without the hint for making a credential: two were just printed
    const ready = await waitForOutput(first, /"msg":"Ready: /);
    assert.match(ready, new RegExp(`"docs":"${first.url}/docs"`));
    assert.doesNotMatch(ready, /credential create/);
    assert.ok(fs.existsSync(path.join(dir, 'cds.sqlite')), 'the database lives in DATA_DIR');

    const rw = await requestToken(first.url, readWrite);
    assert.equal(rw.status, 200, JSON.stringify(rw.body));
    assert.match(rw.body.scope, /vulnerability:write/);
  });

  it('prints a demo console administrator who can sign in to the console it serves', async () => {
    assert.ok(first, 'first start');
    const out = first.stdout();
    assert.match(out, new RegExp(`Developer console: ${first.url}/console`));
    const admin = /email=(\S+)\s+password=(\S+)/.exec(out);
    assert.ok(admin, `no console administrator in:\n${out}`);
    const page = await fetch(`${first.url}/console`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module" src="\/console\/assets\/app-[^"]+\.js">/);
    const signIn = await api(first.url, '/console/api/session', undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: admin[1], password: admin[2] }),
    });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    assert.equal(signIn.body.data.organization.name, 'Demo Organization');
  });

  it('the printed Read Only credential obtains a token, and GET /v1/frameworks lists frameworks with progress', async () => {
    assert.ok(first, 'first start');
    const res = await requestToken(first.url, readOnly);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.doesNotMatch(res.body.scope, /:write/);
    const list = await api(first.url, '/v1/frameworks', res.body.access_token);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.ok(Array.isArray(list.body.data) && list.body.data.length > 0, JSON.stringify(list.body));
    for (const f of list.body.data) {
      assert.equal(typeof f.frameworkId, 'string');
      assert.equal(typeof f.frameworkName, 'string');
      const p = f.complianceProgress;
      assert.ok(p, JSON.stringify(f));
      for (const [key, done] of [
        ['controls', 'compliant'],
        ['policies', 'published'],
        ['evidence', 'uploaded'],
        ['tests', 'passing'],
      ]) {
        assert.ok(
          Number.isInteger(p[key][done]) && Number.isInteger(p[key].total) && Number.isInteger(p[key].percentage),
          JSON.stringify(p),
        );
        assert.ok(p[key][done] <= p[key].total);
      }
    }
    assert.ok(
      list.body.data.some((f: any) => f.complianceProgress.controls.total > 0),
      'the demo data maps controls to frameworks',
    );

    const exit = await first.stop('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null }, first.stderr());
  });

  it('a second start on the same file prints no new credentials; the first ones still work', async () => {
    second = await startServerProcess({ env, cwd: dir, startTimeoutMs: 30_000 });
    const out = second.stdout();
    assert.doesNotMatch(out, /client_id=|client_secret=|cds_secret_|password=/);
    assert.doesNotMatch(out, /Demo organization/);
    const token = await getToken(second.url, readOnly);
    const list = await api(second.url, '/v1/frameworks', token);
    assert.equal(list.status, 200);
    assert.ok(list.body.data.length > 0);
    // no secret or token reaches the logs
    assert.doesNotMatch(second.stdout() + second.stderr(), /cds_secret_|cds_at_/);
    const exit = await second.stop('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null }, second.stderr());
  });
});

describe('DEMO_ON_EMPTY=false', () => {
  it('starts on an empty embedded database without a demo organization', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-start-'));
    let server: ServerProcess | undefined;
    try {
      server = await startServerProcess({ env: { DATA_DIR: dir, SQLITE_PATH: path.join(dir, 'cds.sqlite') }, demoOnEmpty: false });
      assert.doesNotMatch(server.stdout(), /client_id=/);
      assert.equal((await api(server.url, '/readyz')).status, 200);
      assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
    } finally {
      await server?.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', () => {
  it('an invalid setting exits 78 with a message, before listening', async () => {
    await assert.rejects(
      startServerProcess({ env: { REGION: 'mars', DATA_DIR: os.tmpdir() } }),
      (err: Error) => /exited before listening \(code 78/.test(err.message) && /REGION must be one of/.test(err.message),
    );
  });
});
