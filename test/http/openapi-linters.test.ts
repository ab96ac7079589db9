// The served /openapi.json passes Spectral (`spectral:oas`, .spectral.yaml) and Redocly
// (`recommended`, redocly.yaml) with no error and no warning, run as the CLIs a user of the
// document would run, offline. Beside them, what neither linter checks here: every operation has
// an operationId, a description and real response descriptions; every operation but the health
// checks documents a 4xx (Redocly's rule is off for those two); every string parameter is bounded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../harness/server.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '../..');
/** The CLI script of a package, from its package.json `bin`, run with this Node. */
const cli = (pkg: string, name: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), require(`${pkg}/package.json`).bin[name]);
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

let server: TestServer;
let dir: string;
let file: string;
let doc: any;
before(async () => {
  server = await startServer();
  doc = await (await fetch(`${server.url}/openapi.json`)).json();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
});
after(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter that exits non-zero on findings; its JSON report either way. */
async function lint(args: string[]): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(process.execPath, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    if (!stdout) throw new Error(`${args[0]} failed: ${stderr}`);
    return stdout;
  }
}

test('Spectral (spectral:oas): no error, no warning, no hint', async () => {
  const out = await lint([
    cli('@stoplight/spectral-cli', 'spectral'),
    'lint',
    file,
    '--ruleset',
    '.spectral.yaml',
    '--format',
    'json',
    '--quiet',
  ]);
  const results: Array<{ code: string; message: string; path: string[]; severity: number }> = JSON.parse(out.trim() || '[]');
  const lines = results.map((r) => `${r.code} (severity ${r.severity}) at ${r.path.join('.')}: ${r.message}`);
  assert.deepEqual(lines, []);
});

test('Redocly (recommended): no error, no warning', async () => {
  const out = await lint([cli('@redocly/cli', 'redocly'), 'lint', file, '--config', 'redocly.yaml', '--format', 'json']);
  const report = JSON.parse(out.slice(out.indexOf('{')));
  const lines = report.problems.map((p: any) => `${p.ruleId} (${p.severity}) at ${p.location?.[0]?.pointer}: ${p.message}`);
  assert.deepEqual(lines, []);
  assert.equal(report.totals.errors, 0);
  assert.equal(report.totals.warnings, 0);
});

test('the linters find problems in a broken document (the checks above can fail)', async () => {
  const broken = structuredClone(doc);
  delete broken.paths['/v1/frameworks'].get.operationId;
  broken.paths['/v1/frameworks'].get.security = [{ bearerAuth: ['frameworks:read'] }];
  const brokenFile = path.join(dir, 'broken.json');
  fs.writeFileSync(brokenFile, JSON.stringify(broken));
  const spectral = JSON.parse(
    await lint([
      cli('@stoplight/spectral-cli', 'spectral'),
      'lint',
      brokenFile,
      '--ruleset',
      '.spectral.yaml',
      '--format',
      'json',
      '--quiet',
    ]),
  );
  assert.deepEqual([...new Set(spectral.map((r: any) => r.code))].sort(), ['oas3-operation-security-defined', 'operation-operationId']);
  const redoclyOut = await lint([cli('@redocly/cli', 'redocly'), 'lint', brokenFile, '--config', 'redocly.yaml', '--format', 'json']);
  const redocly = JSON.parse(redoclyOut.slice(redoclyOut.indexOf('{')));
  assert.deepEqual([...new Set(redocly.problems.map((p: any) => p.ruleId))].sort(), ['operation-operationId', 'security-scopes-defined']);
});

const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ label: `${m.toUpperCase()} ${p}`, path: p, op: item[m] })),
  );

test('every operation has a unique operationId, a description and a description of each response', () => {
  const ids = operations().map(({ op }) => op.operationId);
  assert.equal(new Set(ids).size, ids.length, `operationIds are unique: ${ids}`);
  for (const { label, op } of operations()) {
    assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${label}: operationId`);
    assert.ok((op.description ?? '').length > 20, `${label}: description`);
    for (const [status, response] of Object.entries<any>(op.responses)) {
      assert.notEqual(response.description, 'Default Response', `${label} ${status}: a real description`);
    }
  }
  const byPath = Object.fromEntries(operations().map(({ label, op }) => [label, op.operationId]));
  assert.equal(byPath['GET /v1/controls'], 'listControls');
  assert.equal(byPath['GET /v1/controls/{controlId}'], 'getControl');
  assert.equal(byPath['POST /v1/vulnerabilities'], 'createVulnerability');
  assert.equal(byPath['PATCH /v1/vulnerabilities/{vulnerabilityId}'], 'updateVulnerability');
  assert.equal(byPath['POST /v1/evidence/{evidenceId}/attachments'], 'uploadEvidenceAttachments');
  assert.equal(byPath['POST /oauth/token'], 'createToken');
});

test('every operation but the health checks and the program schema documents a 4xx; those take no input', () => {
  for (const { label, path: p, op } of operations()) {
    const has4xx = Object.keys(op.responses).some((s) => s.startsWith('4'));
    if (p === '/healthz' || p === '/readyz' || p === '/v1/program/schema') {
      assert.equal(op.parameters, undefined, `${label} takes no parameters`);
      assert.equal(op.requestBody, undefined, `${label} takes no body`);
    } else {
      assert.ok(has4xx, `${label} documents a 4xx`);
    }
  }
});

test('the public operations say so (security: []); every other one names its scheme', () => {
  const publicOps = operations().filter(({ op }) => Array.isArray(op.security) && op.security.length === 0);
  assert.deepEqual(publicOps.map((o) => o.label).sort(), [
    'GET /healthz',
    'GET /readyz',
    'GET /v1/program/schema',
    'POST /console/api/session',
    'POST /oauth/token',
  ]);
  const scopes = Object.keys(doc.components.securitySchemes.bearerAuth.flows.clientCredentials.scopes);
  for (const { label, path: p, op } of operations()) {
    if (publicOps.some((o) => o.label === label)) continue;
    assert.ok(op.security?.length > 0, `${label} names its security`);
    if (p.startsWith('/v1/')) for (const s of op.security[0].bearerAuth) assert.ok(scopes.includes(s), `${label}: scope ${s} is declared`);
  }
});

test('every string parameter is bounded (maxLength, or an enum)', () => {
  for (const { label, op } of operations()) {
    for (const p of op.parameters ?? []) {
      if (p.schema.type !== 'string') continue;
      assert.ok(typeof p.schema.maxLength === 'number' || Array.isArray(p.schema.enum), `${label}: ${p.in} ${p.name} has a maxLength`);
    }
  }
  const token = doc.paths['/oauth/token'].post.requestBody.content['application/json'].schema;
  assert.equal(token.properties.client_id.maxLength, 128);
  assert.equal(token.properties.client_secret.maxLength, 128);
});

test('info names the license and a contact; servers name this deployment', () => {
  assert.equal(doc.info.license.identifier, 'Apache-2.0');
  assert.equal(typeof doc.info.contact.name, 'string');
  assert.deepEqual(
    doc.servers.map((s: any) => s.url),
    [server.url],
  );
});
