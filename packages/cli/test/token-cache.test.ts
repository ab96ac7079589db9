// The access token kept between runs: one token request for consecutive runs (on a server that
// allows one token request a minute, a second would be refused with 429), the file private
// (0600 in a 0700 directory) and named by a hash, --no-token-cache and COMPLIANCE_TOKEN_CACHE=0,
// a cached token of a revoked credential (exit 3, the file removed), a stale one (renewed, the
// file replaced), and cache files that are not private or not readable (ignored, replaced).
// Token requests are counted in the service's access_tokens table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { changeCredentialAccess } from '../../../src/domain/auth/change-credential-access.ts';
import { revokeCredential } from '../../../src/domain/auth/revoke-credential.ts';
import { addCredential, startServer, type Client, type TestServer } from '../../../test/harness/server.ts';
import { explain, makeHome, runCli, type CliResult } from './support/cli.ts';
import { GENEROUS_LIMITS, startCliService, type CliService } from './support/service.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}

describe('compliance: the access token cache', () => {
  let service: CliService;
  /** a second app on the same database that allows one token request a minute per credential */
  let oneTokenAMinute: TestServer;
  const homes: string[] = [];

  before(async () => {
    service = await startCliService('sqlite', { demo: false });
    oneTokenAMinute = await startServer({ database: service.server.database, env: { ...GENEROUS_LIMITS, TOKEN_RATE_LIMIT_MAX: '1' } });
  });
  after(async () => {
    await oneTokenAMinute?.close();
    await service?.close();
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A new credential (its own token rate-limit window) and a new home whose cache is XDG_CACHE_HOME. */
  async function fresh(accessLevel: 'read_only' | 'read_write' = 'read_only') {
    const client = await addCredential(service.server.system, service.organizationId, accessLevel);
    const home = makeHome();
    homes.push(home);
    const cacheDir = path.join(home, 'xdg-cache', 'compliance');
    const run = (args: string[], env: Record<string, string | undefined> = {}, url = service.server.url) =>
      runCli(args, {
        home,
        env: {
          COMPLIANCE_BASE_URL: url,
          COMPLIANCE_CLIENT_ID: client.clientId,
          COMPLIANCE_CLIENT_SECRET: client.clientSecret,
          XDG_CACHE_HOME: path.join(home, 'xdg-cache'),
          ...env,
        },
      });
    const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []);
    return { client, home, cacheDir, run, cacheFiles };
  }

  async function tokensIssued(client: Client): Promise<number> {
    const row = await service.server.database.db.kysely
      .selectFrom('access_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('credential_id', '=', client.credentialId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('two consecutive runs make one token request; the file is 0600 in a 0700 directory, named by a hash', async () => {
    const { client, cacheDir, run, cacheFiles } = await fresh();
    const url = oneTokenAMinute.url;
    // --max-retries 0: a second token request would be answered 429 and fail the run (exit 8).
    const first = await run(['frameworks', 'list', '--max-retries', '0'], {}, url);
    assert.deepEqual(JSON.parse(ok(first)), []);
    const second = await run(['controls', 'list', '--max-retries', '0'], {}, url);
    assert.deepEqual(JSON.parse(ok(second)), []);
    assert.equal(second.stderr, '', 'no warning');
    assert.equal(await tokensIssued(client), 1);

    const files = cacheFiles();
    assert.equal(files.length, 1, `one cache file: ${files.join(', ')}`);
    assert.match(files[0], /^[0-9a-f]{64}\.json$/);
    const file = path.join(cacheDir, files[0]);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(cacheDir).mode & 0o777, 0o700);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(
      !text.includes(client.clientSecret) && !text.includes(client.clientId),
      'neither the secret nor the client ID is in the file',
    );
    const cached = JSON.parse(text);
    assert.match(cached.accessToken, /\S/);
    assert.equal(cached.tokenType, 'Bearer');
    assert.match(cached.scope, /framework:read/);
    assert.ok(Math.abs(cached.expiresAt - (Date.now() + 3600_000)) < 60_000, 'expiresAt is about an hour from now, in epoch ms');

    // With --no-token-cache the run asks for a token again, and this server refuses it.
    const uncached = await run(['frameworks', 'list', '--max-retries', '0', '--no-token-cache'], {}, url);
    assert.equal(uncached.code, 8, explain(uncached));
    assert.match(uncached.stderr, /temporarily_unavailable/);

    // Another address (the main server) is another file; the old one stays.
    ok(await run(['frameworks', 'list']));
    assert.equal(cacheFiles().length, 2);
    assert.equal(await tokensIssued(client), 2);
    // The temporary files of the atomic writes are gone.
    assert.ok(cacheFiles().every((f) => /^[0-9a-f]{64}\.json$/.test(f)));
  });

  it('without XDG_CACHE_HOME the cache is ~/.cache/compliance', async () => {
    const { client, home, run } = await fresh();
    ok(await run(['frameworks', 'list'], { XDG_CACHE_HOME: undefined }));
    ok(await run(['frameworks', 'list'], { XDG_CACHE_HOME: undefined }));
    assert.equal(await tokensIssued(client), 1);
    const dir = path.join(home, '.cache', 'compliance');
    assert.equal(fs.readdirSync(dir).length, 1);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  });

  it('--no-token-cache and COMPLIANCE_TOKEN_CACHE=0 request a token every run and write nothing', async () => {
    const { client, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list', '--no-token-cache']));
    ok(await run(['frameworks', 'list', '--no-token-cache']));
    assert.equal(await tokensIssued(client), 2, '--no-token-cache makes a second token request');
    ok(await run(['frameworks', 'list'], { COMPLIANCE_TOKEN_CACHE: '0' }));
    assert.equal(await tokensIssued(client), 3);
    assert.deepEqual(cacheFiles(), [], 'nothing was written');

    // With a cached token, --no-token-cache neither reads nor removes it.
    ok(await run(['frameworks', 'list']));
    assert.equal(await tokensIssued(client), 4);
    ok(await run(['frameworks', 'list'], { COMPLIANCE_TOKEN_CACHE: 'false' }));
    assert.equal(await tokensIssued(client), 5);
    assert.equal(cacheFiles().length, 1);
    ok(await run(['frameworks', 'list'], { COMPLIANCE_TOKEN_CACHE: '1' }));
    assert.equal(await tokensIssued(client), 5, 'COMPLIANCE_TOKEN_CACHE=1 uses the cache');

    const bad = await run(['frameworks', 'list'], { COMPLIANCE_TOKEN_CACHE: 'sometimes' });
    assert.equal(bad.code, 2, explain(bad));
    assert.match(bad.stderr, /COMPLIANCE_TOKEN_CACHE takes 1 or 0/);
  });

  it('a cached token of a credential revoked since: exit 3 (token_revoked) and the file is removed', async () => {
    const { client, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list']));
    assert.equal(cacheFiles().length, 1);
    await revokeCredential({ ctx: service.server.system, input: { credentialId: client.credentialId } });
    const res = await run(['frameworks', 'list']);
    assert.equal(res.code, 3, explain(res));
    assert.match(res.stderr, /token_revoked/);
    assert.equal(res.stdout, '');
    assert.deepEqual(cacheFiles(), [], 'the cache file of the revoked credential is removed');
    assert.equal(await tokensIssued(client), 1, 'no token was requested for the revoked credential');
    // The next run asks the token endpoint, which refuses the credential.
    const again = await run(['frameworks', 'list']);
    assert.equal(again.code, 3, explain(again));
    assert.match(again.stderr, /invalid_client/);
  });

  it('a cached token gone stale (the access level changed) is renewed once and the file replaced', async () => {
    const { client, cacheDir, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list']));
    const file = path.join(cacheDir, cacheFiles()[0]);
    const before = JSON.parse(fs.readFileSync(file, 'utf8'));
    await changeCredentialAccess({ ctx: service.server.system, input: { credentialId: client.credentialId, accessLevel: 'read_write' } });
    ok(await run(['frameworks', 'list']));
    assert.equal(await tokensIssued(client), 2);
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.notEqual(after.accessToken, before.accessToken);
    assert.match(after.scope, /vulnerability:write/);
    ok(await run(['frameworks', 'list']));
    assert.equal(await tokensIssued(client), 2, 'the new token is used by the next run');
  });

  it('a cache file that others can read (0644) is ignored and replaced by a private one', async () => {
    const { client, cacheDir, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list']));
    const file = path.join(cacheDir, cacheFiles()[0]);
    const before = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.chmodSync(file, 0o644);
    const res = await run(['frameworks', 'list']);
    ok(res);
    assert.match(res.stderr, /warning: ignoring the token cache .*permissions 0644 are too open/);
    assert.equal(await tokensIssued(client), 2, 'a new token was requested');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.notEqual(JSON.parse(fs.readFileSync(file, 'utf8')).accessToken, before.accessToken);
    const quiet = await run(['frameworks', 'list']);
    assert.equal(ok(quiet) && quiet.stderr, '');
    assert.equal(await tokensIssued(client), 2);
  });

  it('a cache file that cannot be used never fails the command: corrupt JSON, an expired token, a symbolic link', async () => {
    const { client, home, cacheDir, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list']));
    const file = path.join(cacheDir, cacheFiles()[0]);

    fs.writeFileSync(file, '{"accessToken": "cds_at_', { mode: 0o600 });
    const corrupt = await run(['frameworks', 'list']);
    ok(corrupt);
    assert.match(corrupt.stderr, /warning: ignoring the token cache/);
    assert.equal(await tokensIssued(client), 2);

    const cached = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, JSON.stringify({ ...cached, expiresAt: Date.now() - 1000 }));
    const expired = await run(['frameworks', 'list']);
    assert.equal(ok(expired) && expired.stderr, '', 'an expired token is replaced without a word');
    assert.equal(await tokensIssued(client), 3);

    // A symbolic link in place of the file is not followed.
    const elsewhere = path.join(home, 'elsewhere.json');
    fs.renameSync(file, elsewhere);
    fs.symlinkSync(elsewhere, file);
    const linked = await run(['frameworks', 'list']);
    ok(linked);
    assert.match(linked.stderr, /warning: ignoring the token cache .*: it is a symbolic link/);
    assert.equal(await tokensIssued(client), 4);
    assert.ok(fs.lstatSync(file).isFile(), 'the link was replaced by a file');

    // A cache directory that cannot be created: a warning, and the command works.
    const blocked = await run(['frameworks', 'list'], { XDG_CACHE_HOME: path.join(elsewhere, 'not-a-dir') });
    ok(blocked);
    assert.match(blocked.stderr, /warning: cannot write the token cache: .*--no-token-cache/);
  });

  it('whoami requests its own token, and the help documents the cache', async () => {
    const { client, run, cacheFiles } = await fresh();
    ok(await run(['frameworks', 'list']));
    ok(await run(['whoami', '-o', 'json']));
    assert.equal(await tokensIssued(client), 2, 'whoami checks the credential with a new token');
    assert.equal(cacheFiles().length, 1);
    const help = ok(await run(['--help']));
    assert.match(help, /--no-token-cache/);
    assert.match(help, /COMPLIANCE_TOKEN_CACHE/);
    assert.match(help, /~\/\.cache\/compliance/);
  });
});
