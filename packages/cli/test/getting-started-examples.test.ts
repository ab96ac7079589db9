// The upload examples of docs/getting-started.md, run twice as a reader would: the curl command
// (taken from the page itself, with the token and evidence ID filled in) and the
// `compliance evidence upload` line, both with the files under examples/. The evidence date and the key are fixed, so the second
// run is answered from the stored response and the evidence holds the files once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { explain } from './support/cli.ts';
import { startCliService, type CliService } from './support/service.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

/** The page's upload command: from `curl -s ".../attachments"` to its last continued line. */
function pageUploadCommand(): string {
  const page = fs.readFileSync(path.join(REPO, 'docs/getting-started.md'), 'utf8');
  const start = page.indexOf('curl -s "http://127.0.0.1:3000/v1/evidence/$EVIDENCE_ID/attachments"');
  assert.ok(start > 0, 'the getting-started page has the upload example');
  const lines: string[] = [];
  for (const line of page.slice(start).split('\n')) {
    lines.push(line);
    if (!line.endsWith('\\')) break;
  }
  return lines.join('\n');
}

describe("the getting-started page's upload examples", { concurrency: 1 }, () => {
  let s: CliService;
  let token: string;
  before(async () => {
    s = await startCliService('sqlite');
    const res = await fetch(`${s.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: s.readWrite.clientId, client_secret: s.readWrite.clientSecret }),
    });
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  after(() => s?.close());

  const attachmentsOf = async (evidenceId: string) =>
    (await s.sdk.evidence.get(evidenceId, { fields: ['attachments'] })).data.attachments ?? [];

  it('curl, run twice from the repository root: the second answer is the replay', {
    skip: hasCurl ? false : 'curl is not installed',
  }, async () => {
    const evidenceId = (await s.sdk.evidence.list()).data[0].evidenceId;
    const before = (await attachmentsOf(evidenceId)).length;
    const command = pageUploadCommand()
      .replace('http://127.0.0.1:3000', s.server.url)
      .replace(/^curl -s /, 'curl -s -i ');
    // Asynchronously: the service runs in this process and must answer while curl waits.
    const run = () =>
      promisify(execFile)('bash', ['-c', command], {
        cwd: REPO,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, EVIDENCE_ID: evidenceId, H: `Authorization: Bearer ${token}` },
      });
    const first = await run();
    assert.match(first.stdout, /^HTTP\/1\.1 201/, first.stdout + first.stderr);
    const second = await run();
    assert.match(second.stdout, /^HTTP\/1\.1 201/, second.stdout + second.stderr);
    assert.match(second.stdout, /^idempotent-replayed: true\r?$/im);
    const data = (out: string) => JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)).data;
    assert.deepEqual(data(second.stdout), data(first.stdout));
    assert.equal((await attachmentsOf(evidenceId)).length, before + 2, 'two files, once');
  });

  it('compliance evidence upload with the same key, files and date: done once, replayed once', async () => {
    const evidenceId = (await s.sdk.evidence.list()).data[1].evidenceId;
    const before = (await attachmentsOf(evidenceId)).length;
    const args = [
      'evidence',
      'upload',
      evidenceId,
      '--file',
      path.join(REPO, 'examples/access-review.xlsx'),
      '--file',
      path.join(REPO, 'examples/approvals.csv'),
      '--evidence-date',
      '2026-11-20',
      '--idempotency-key',
      'cli-upload-2026-q4-access-review',
      '-o',
      'json',
    ];
    const first = await s.cli(args, { client: s.readWrite });
    assert.equal(first.code, 0, explain(first));
    const second = await s.cli(args, { client: s.readWrite });
    assert.equal(second.code, 0, explain(second));
    assert.match(second.stderr, /answered from the stored response/);
    assert.deepEqual(JSON.parse(second.stdout), JSON.parse(first.stdout));
    // The page's CLI example uses its own key: the curl example's key, already used for another
    // request, would be refused (409 idempotency_key_reused).
    assert.equal((await attachmentsOf(evidenceId)).length, before + 2);
  });
});
