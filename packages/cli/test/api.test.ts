// compliance api [METHOD] PATH: raw requests with the credential handled, as `gh api` does, against
// the real service: query fields, JSON bodies from a file and from fields, idempotent writes that
// replay, --paginate over every page, -i, and the refusals (a URL instead of a path, a header the
// command owns) and exit codes of API errors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { explain, type CliResult } from './support/cli.ts';
import { startCliService, type CliService } from './support/service.ts';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples');
const ok = (res: CliResult) => {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
};

describe('compliance api', { concurrency: 1 }, () => {
  let s: CliService;
  before(async () => {
    s = await startCliService('sqlite');
  });
  after(() => s?.close());

  it('GET a path: the body as JSON on stdout; -f fields are the query, repeated keys a list', async () => {
    const frameworks = JSON.parse(ok(await s.cli(['api', '/v1/frameworks'])));
    assert.deepEqual(frameworks.data, (await s.sdk.frameworks.list()).data);
    assert.match(frameworks.meta.requestId, /^req_/);

    const res = await s.cli([
      'api',
      'GET',
      'v1/controls',
      '-f',
      'status=non_compliant',
      '-f',
      'functionGroupings=protect',
      '-f',
      'functionGroupings=detect',
    ]);
    const expected = await s.sdk.controls.list({ status: ['non_compliant'], functionGroupings: ['protect', 'detect'] });
    assert.deepEqual(
      JSON.parse(ok(res)).data.map((c: { controlId: string }) => c.controlId),
      expected.data.map((c) => c.controlId),
    );
    assert.ok(expected.data.length > 0);
  });

  it('--paginate follows nextCursor to the end: every finding once', async () => {
    const res = await s.cli(['api', '/v1/vulnerabilities', '-F', 'count=50', '--paginate', '-o', 'ndjson']);
    const lines = ok(res)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { vulnerabilityId: string });
    const { meta } = await s.sdk.vulnerabilities
      .list({ count: 50 })
      .pages()
      .next()
      .then((r) => r.value!);
    assert.equal(lines.length, meta.totalCount);
    assert.equal(new Set(lines.map((v) => v.vulnerabilityId)).size, lines.length);
    const asArray = JSON.parse(ok(await s.cli(['api', '/v1/vulnerabilities', '-f', 'severity=critical', '--paginate'])));
    assert.ok(Array.isArray(asArray) && asArray.every((v: { severity: string }) => v.severity === 'critical'));
  });

  it('POST with --input: the Idempotency-Key makes the second run a replay; PATCH from fields', async () => {
    const args = [
      'api',
      'POST',
      '/v1/vulnerabilities',
      '--input',
      path.join(EXAMPLES, 'finding.json'),
      '--idempotency-key',
      'api-create-9050',
    ];
    const first = await s.cli(args, { client: s.readWrite });
    const created = JSON.parse(ok(first));
    assert.equal(created.data.vulnerabilityId, 'api%23VUL-9050');
    const again = await s.cli(args, { client: s.readWrite });
    assert.deepEqual(JSON.parse(ok(again)).data, created.data);
    assert.match(again.stderr, /answered from the stored response of an earlier request with idempotency key api-create-9050/);

    const patched = await s.cli(
      ['api', 'PATCH', '/v1/vulnerabilities/api%23VUL-9050', '-f', 'reportLink=https://reports.example.com/9050'],
      { client: s.readWrite },
    );
    assert.equal(JSON.parse(ok(patched)).data.reportLink, 'https://reports.example.com/9050');
    const stored = await s.sdk.vulnerabilities.get('api%23VUL-9050');
    assert.equal(stored.data.reportLink, 'https://reports.example.com/9050');
  });

  it('-i prints the status and headers first; -H adds a header', async () => {
    const out = ok(await s.cli(['api', '-i', '/v1/frameworks', '-H', 'X-Trace: abc']));
    assert.match(out, /^HTTP 200\n/);
    assert.match(out, /^x-request-id: req_/m);
    assert.match(out, /^x-ratelimit-limit: \d+$/m);
    assert.ok(JSON.parse(out.slice(out.indexOf('\n\n') + 2)).data);
  });

  it('refusals and API errors keep their exit codes', async () => {
    const [url, auth, method, notFound, readOnlyWrite] = await Promise.all([
      s.cli(['api', 'https://elsewhere.example/v1/frameworks']),
      s.cli(['api', '/v1/frameworks', '-H', 'Authorization: Bearer stolen']),
      s.cli(['api', 'FETCH', '/v1/frameworks']),
      s.cli(['api', '/v1/controls/00000000-0000-0000-0000-000000000000']),
      s.cli(['api', 'POST', '/v1/vulnerabilities', '-f', 'title=x']),
    ]);
    assert.equal(url.code, 2, explain(url));
    assert.match(url.stderr, /give a path of the service such as \/v1\/frameworks, not a URL/);
    assert.equal(auth.code, 2, explain(auth));
    assert.equal(method.code, 2, explain(method));
    assert.equal(notFound.code, 4, explain(notFound));
    assert.match(notFound.stderr, /not_found/);
    assert.equal(readOnlyWrite.code, 5, explain(readOnlyWrite));
    assert.match(readOnlyWrite.stderr, /idempotency key: /);
  });
});
