// What a person sees when starting the server (a real child process): every start says where the
// API, the console and the API reference are, and how to make a credential when it printed none;
// logs are JSON when stdout is not a terminal and readable with LOG_FORMAT=pretty; probes are
// logged at debug only; a port in use is one line and exit status 1, not a stack trace.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../harness/engines.ts';
import { runServerProcessToExit, startServerProcess, waitForOutput, type ServerProcess } from '../harness/process.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';

const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { msg: string; links?: Record<string, string>; req?: { url: string } });

describe('the start of the server, as a person meets it', () => {
  let empty: TestDatabase;
  let withOrg: TestDatabase;
  const running: ServerProcess[] = [];
  const start = async (...args: Parameters<typeof startServerProcess>) => {
    const proc = await startServerProcess(...args);
    running.push(proc);
    return proc;
  };

  before(async () => {
    empty = await createTestDatabase('sqlite');
    withOrg = await createTestDatabase('sqlite');
    await createOrganization({ ctx: { db: withOrg.db, region: 'us', now: Date.now }, input: { name: 'Acme' } });
  });
  after(async () => {
    for (const proc of running) await proc.kill();
    await empty?.drop();
    await withOrg?.drop();
  });

  it('logs JSON lines when stdout is not a terminal, one of them saying where everything is', async () => {
    const server = await start({ database: empty, env: { OPS_PORT: 'off' } });
    const out = await waitForOutput(server, /"msg":"Ready: /);
    const lines = jsonLines(out); // every line of stdout is JSON
    const ready = lines.find((l) => l.msg.startsWith('Ready: '))!;
    assert.deepEqual(ready.links, {
      api: `${server.url}/v1`,
      token: `${server.url}/oauth/token`,
      console: `${server.url}/console`,
      docs: `${server.url}/docs`,
      openapi: `${server.url}/openapi.json`,
    });
    // no organization yet: how to get one and a credential
    assert.match(ready.msg, /npm run cds -- demo/);
    assert.match(ready.msg, /npm run cds -- org create/);
    await server.stop();
  });

  it('on a database with an organization, says how to make a credential; probes are not logged at info', async () => {
    const server = await start({ database: withOrg, env: { OPS_PORT: 'off' } });
    const ready = jsonLines(await waitForOutput(server, /"msg":"Ready: /)).find((l) => l.msg.startsWith('Ready: '))!;
    assert.match(ready.msg, /npm run cds -- credential create --org "<organization name or ID>" --access read_only/);
    assert.match(ready.msg, /npm run cds -- admin reset-password/);

    for (const path of ['/healthz', '/readyz', '/healthz', '/v1/frameworks']) await (await fetch(server.url + path)).text();
    const urls = jsonLines(await waitForOutput(server, /"url":"\/v1\/frameworks"/)).map((l) => l.req?.url);
    assert.ok(urls.includes('/v1/frameworks'), 'an API request is logged');
    assert.ok(!urls.includes('/healthz') && !urls.includes('/readyz'), 'probes are not logged at info');
    await server.stop();

    const debug = await start({ database: withOrg, env: { OPS_PORT: 'off', LOG_LEVEL: 'debug' } });
    await (await fetch(`${debug.url}/healthz`)).text();
    await waitForOutput(debug, /"url":"\/healthz"/);
    await debug.stop();
  });

  it('with LOG_FORMAT=pretty, prints readable lines and the links as text', async () => {
    const server = await start({ database: withOrg, env: { OPS_PORT: 'off', LOG_FORMAT: 'pretty' } });
    const out = await waitForOutput(server, /A lost console password/);
    assert.match(out, /INFO.*Server listening at/);
    assert.match(out, /Compliance Data REST Service is ready:/);
    assert.match(out, new RegExp(`Console +${server.url}/console\\n`));
    assert.match(out, new RegExp(`API reference +${server.url}/docs\\n`));
    assert.match(out, new RegExp(`OpenAPI +${server.url}/openapi.json\\n`));
    assert.ok(!out.split('\n').some((line) => line.startsWith('{')), `no JSON lines:\n${out}`);
    await server.stop();
  });

  it('a port in use: one line naming the port and PORT, exit status 1, no stack trace', async () => {
    const first = await start({ database: withOrg, env: { OPS_PORT: 'off' } });
    const second = await runServerProcessToExit({ database: withOrg, env: { OPS_PORT: 'off', PORT: String(first.port) } });
    assert.equal(second.code, 1, second.stderr);
    const lines = second.stderr.trim().split('\n');
    assert.equal(lines.length, 1, second.stderr);
    assert.match(lines[0], new RegExp(`^port ${first.port} on 127\\.0\\.0\\.1 is in use .*set PORT=`));
    // the first server still serves
    assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
  });

  it('an operations port in use names OPS_PORT', async () => {
    const first = await start({ database: withOrg, env: { OPS_PORT: 'off' } });
    const second = await runServerProcessToExit({ database: withOrg, env: { OPS_PORT: String(first.port) } });
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr.trim(), new RegExp(`^port ${first.port} on 127\\.0\\.0\\.1 is in use .*set OPS_PORT=[^\\n]*$`));
  });

  it('GET / is a small page linking the console, the API reference and the OpenAPI document', async () => {
    const server = running.find((p) => p.child.exitCode === null) ?? (await start({ database: withOrg }));
    const res = await fetch(server.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const html = await res.text();
    for (const href of ['/console', '/docs', '/openapi.json']) assert.ok(html.includes(`href="${href}"`), href);
    assert.equal((await fetch(`${server.url}/docs/`)).status, 200);
  });

  it('an unknown LOG_FORMAT is a configuration error', async () => {
    const res = await runServerProcessToExit({ database: withOrg, env: { LOG_FORMAT: 'fancy' } });
    assert.equal(res.code, 78);
    assert.match(res.stderr, /LOG_FORMAT must be one of auto, json, pretty, got "fancy"/);
  });
});
