// Where the CLI takes its credential from (environment variables, the profile file, which wins),
// the refusal of a profile file others can read, `configure`, and the exit codes of failures
// before any data is read: no credentials, a wrong secret, bad flags, an unreachable server.
// The credential logic does not depend on the storage engine, so this runs on SQLite only.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { explain, makeHome, runCli, type CliResult } from './support/cli.ts';
import { startCliService, type CliService } from './support/service.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}

function fails(res: CliResult, code: number, stderr?: RegExp): void {
  assert.equal(res.code, code, explain(res));
  assert.equal(res.stdout, '', 'nothing on stdout when a command fails');
  if (stderr) assert.match(res.stderr, stderr);
}

const NO_CREDENTIALS = { COMPLIANCE_BASE_URL: undefined, COMPLIANCE_CLIENT_ID: undefined, COMPLIANCE_CLIENT_SECRET: undefined };

function writeProfileFile(file: string, text: string, mode = 0o600): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
  fs.chmodSync(file, mode);
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('compliance: credentials and configuration', () => {
  let service: CliService;
  let home: string;
  let profileFile: string;
  const homes: string[] = [];

  before(async () => {
    service = await startCliService('sqlite', { demo: false });
  });
  after(async () => {
    await service?.close();
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
  });

  // Each test gets its own home, so profile files never leak from one test into another.
  const freshHome = () => {
    home = makeHome();
    homes.push(home);
    profileFile = path.join(home, '.config', 'compliance', 'credentials');
    return home;
  };
  const run = (args: string[], env: Record<string, string | undefined> = {}, input?: string) => runCli(args, { home, env, input });

  it('takes the credential from environment variables and never prints the secret', async () => {
    freshHome();
    const res = await run(['whoami', '-o', 'json'], service.envFor(service.readOnly));
    const me = JSON.parse(ok(res));
    assert.equal(me.clientId, service.readOnly.clientId);
    assert.equal(me.baseUrl, service.server.url);
    assert.equal(me.clientSecretFrom, 'COMPLIANCE_CLIENT_SECRET');
    assert.equal(me.profile, null);
    assert.ok(me.scopes.includes('vulnerability:read'));
    assert.ok(!me.scopes.includes('vulnerability:write'));
    assert.ok(!res.stdout.includes(service.readOnly.clientSecret) && !res.stderr.includes(service.readOnly.clientSecret));
    // Reads work with the same variables: an empty organization has no frameworks.
    assert.deepEqual(JSON.parse(ok(await run(['frameworks', 'list'], service.envFor()))), []);
  });

  it('reads a profile file (XDG_CONFIG_HOME), selected by --profile or COMPLIANCE_PROFILE; the environment overrides it', async () => {
    freshHome();
    writeProfileFile(
      profileFile,
      [
        '# made by hand',
        '[default]',
        `client_id = ${service.readOnly.clientId}`,
        `client_secret = ${service.readOnly.clientSecret}`,
        `base_url = ${service.server.url}`,
        '',
        '[writer]',
        `client_id = "${service.readWrite.clientId}"`,
        `client_secret = "${service.readWrite.clientSecret}"`,
        `base_url = ${service.server.url}/`,
        '',
      ].join('\n'),
    );
    const [byDefault, byFlag, byEnv, overridden, missing] = await Promise.all([
      run(['whoami', '-o', 'json'], NO_CREDENTIALS),
      run(['whoami', '-o', 'json', '--profile', 'writer'], NO_CREDENTIALS),
      run(['whoami', '-o', 'json'], { ...NO_CREDENTIALS, COMPLIANCE_PROFILE: 'writer' }),
      // A wrong secret in the environment wins over the right one in the file.
      run(['frameworks', 'list'], { ...NO_CREDENTIALS, COMPLIANCE_CLIENT_SECRET: 'cds_secret_wrong' }),
      run(['frameworks', 'list', '--profile', 'nobody'], NO_CREDENTIALS),
    ]);
    const d = JSON.parse(ok(byDefault));
    assert.equal(d.clientId, service.readOnly.clientId);
    assert.equal(d.profile, 'default');
    assert.equal(d.credentialsFile, profileFile);
    assert.match(d.clientSecretFrom, /profile "default"/);
    const w = JSON.parse(ok(byFlag));
    assert.equal(w.clientId, service.readWrite.clientId);
    assert.ok(w.scopes.includes('vulnerability:write'));
    assert.equal(JSON.parse(ok(byEnv)).clientId, service.readWrite.clientId);
    fails(overridden, 3, /invalid_client/);
    fails(missing, 3, /profile "nobody" is not in/);

    // COMPLIANCE_CONFIG names another file.
    const elsewhere = path.join(home, 'elsewhere.ini');
    writeProfileFile(
      elsewhere,
      `[default]\nclient_id=${service.readWrite.clientId}\nclient_secret=${service.readWrite.clientSecret}\nbase_url=${service.server.url}\n`,
    );
    assert.equal(
      JSON.parse(ok(await run(['whoami', '-o', 'json'], { ...NO_CREDENTIALS, COMPLIANCE_CONFIG: elsewhere }))).clientId,
      service.readWrite.clientId,
    );
  });

  it('refuses a profile file that group or others can read (exit 3), without printing the secret', async () => {
    freshHome();
    writeProfileFile(
      profileFile,
      `[default]\nclient_id = ${service.readOnly.clientId}\nclient_secret = ${service.readOnly.clientSecret}\nbase_url = ${service.server.url}\n`,
      0o644,
    );
    const refused = await run(['frameworks', 'list'], NO_CREDENTIALS);
    fails(refused, 3, /permissions 0644 .* too open/);
    assert.match(refused.stderr, /chmod 600/);
    assert.ok(!refused.stderr.includes(service.readOnly.clientSecret));
    fs.chmodSync(profileFile, 0o640);
    fails(await run(['frameworks', 'list'], NO_CREDENTIALS), 3, /0640/);
    fs.chmodSync(profileFile, 0o600);
    ok(await run(['frameworks', 'list'], NO_CREDENTIALS));
  });

  it('configure writes a profile with mode 0600 from stdin, keeping the other profiles', async () => {
    freshHome();
    const first = await run(
      ['configure', '--client-id', service.readOnly.clientId, '--base-url', service.server.url],
      NO_CREDENTIALS,
      `${service.readOnly.clientSecret}\n`,
    );
    assert.equal(first.code, 0, explain(first));
    assert.match(first.stderr, /wrote profile "default"/);
    const second = await run(
      ['configure', '--profile', 'rw', '--client-id', service.readWrite.clientId, '--base-url', service.server.url],
      NO_CREDENTIALS,
      `${service.readWrite.clientSecret}\n`,
    );
    assert.equal(second.code, 0, explain(second));
    for (const res of [first, second]) assert.ok(!res.stdout.includes('secret_') && !res.stderr.includes('secret_'));

    assert.equal(fs.statSync(profileFile).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(profileFile)).mode & 0o777, 0o700);
    const text = fs.readFileSync(profileFile, 'utf8');
    assert.match(text, /^\[default\]$/m);
    assert.match(text, /^\[rw\]$/m);

    const [ro, rw] = await Promise.all([
      run(['whoami', '-o', 'json'], NO_CREDENTIALS),
      run(['whoami', '-o', 'json', '--profile', 'rw'], NO_CREDENTIALS),
    ]);
    assert.equal(JSON.parse(ok(ro)).clientId, service.readOnly.clientId);
    assert.equal(JSON.parse(ok(rw)).clientId, service.readWrite.clientId);

    // Without a secret on stdin the profile's secret is kept; a profile without one is refused.
    ok(await run(['configure', '--region', 'eu', '--no-verify'], NO_CREDENTIALS, ''));
    assert.match(fs.readFileSync(profileFile, 'utf8'), /^\[default\]\nclient_id = .+\nclient_secret = cds_secret_.+\nregion = eu$/m);
    fails(
      await run(['configure', '--profile', 'new', '--client-id', 'cds_id_AAAAAAAAAAAAAAAA', '--region', 'us'], NO_CREDENTIALS, ''),
      2,
      /client secret is required/,
    );
  });

  it('exit 3 without credentials, with a wrong secret, or without a service address', async () => {
    freshHome();
    const [none, wrong, noAddress] = await Promise.all([
      run(['frameworks', 'list'], NO_CREDENTIALS),
      run(['frameworks', 'list'], { ...service.envFor(), COMPLIANCE_CLIENT_SECRET: 'cds_secret_not-the-right-one' }),
      run(['frameworks', 'list'], { ...service.envFor(), COMPLIANCE_BASE_URL: undefined }),
    ]);
    fails(none, 3, /no credentials configured: set COMPLIANCE_CLIENT_ID and COMPLIANCE_CLIENT_SECRET/);
    fails(wrong, 3, /invalid_client/);
    assert.match(wrong.stderr, /request ID: req_/);
    fails(noAddress, 3, /no service address/);
  });

  it('exit 2 for usage errors: unknown commands and flags, unreadable values, a secret as a flag', async () => {
    freshHome();
    const env = service.envFor();
    const results = await Promise.all([
      run(['frobnicate'], env),
      run(['controls'], env),
      run(['controls', 'list', '--no-such-flag'], env),
      run(['controls', 'get'], env),
      run(['frameworks', 'list', '--output', 'xml'], env),
      run(['policies', 'list', '--is-relevant', 'maybe'], env),
      run(['vulnerabilities', 'list', '--page-size', '75'], env),
      run(['whoami', '--client-secret', 'cds_secret_x'], env),
      run(['--profile', 'default'], env),
    ]);
    for (const res of results) fails(res, 2);
    assert.match(results[0].stderr, /unknown command "frobnicate"/);
    assert.match(results[2].stderr, /--no-such-flag/);
    assert.match(results[3].stderr, /missing CONTROL_ID/);
    assert.match(results[5].stderr, /--is-relevant takes true or false/);
    assert.match(results[8].stderr, /which command\? commands: frameworks list, controls list/);
  });

  it('a mistyped command, action or flag gets a did-you-mean, as cds does', async () => {
    freshHome();
    const env = service.envFor();
    const cases: Array<[args: string[], message: RegExp]> = [
      [['contrls', 'list'], /unknown command "contrls"\. Did you mean "controls"\?/],
      [['vuln', 'list'], /unknown command "vuln"\. Did you mean "vulnerabilities"\?/],
      [['controls', 'lst'], /unknown command "controls lst"; controls has list, get, update\. Did you mean "controls list"\?/],
      [['controls', 'list', '--stauts', 'compliant'], /unknown option "--stauts"\. Did you mean "--status"\?/],
      [['frameworks', 'list', '--outptu', 'json'], /unknown option "--outptu"\. Did you mean "--output"\?/],
      [['--profle', 'work', 'whoami'], /unknown option "--profle"\. Did you mean "--profile"\?/],
      [['help', 'polcies'], /unknown command "polcies"\. Did you mean "policies"\?/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args, env)));
    for (const [i, [args, message]] of cases.entries()) {
      fails(results[i], 2);
      assert.match(results[i].stderr, message, args.join(' '));
      assert.equal(results[i].stdout, '', 'nothing on stdout');
    }
  });

  it('bare "compliance" prints its help on stdout and exits 0', async () => {
    freshHome();
    const [bare, help] = await Promise.all([run([]), run(['--help'])]);
    assert.equal(bare.code, 0, explain(bare));
    assert.equal(bare.stderr, '');
    assert.equal(bare.stdout, help.stdout);
    assert.match(bare.stdout, /^Usage: compliance COMMAND/m);
  });

  it('--help documents the commands and exit codes; a command help lists its filters', async () => {
    freshHome();
    const [main, controls, vulns, version] = await Promise.all([
      run(['--help']),
      run(['controls', 'list', '--help']),
      run(['help', 'vulnerabilities', 'list']),
      run(['--version']),
    ]);
    const text = ok(main);
    for (const code of [
      '0  success',
      '2  usage error',
      '3  authentication',
      '4  not found',
      '5  permission',
      '6  validation',
      '7  conflict',
      '8  rate limited',
      '9  network',
    ]) {
      assert.ok(text.includes(code), `--help lists exit code "${code}"`);
    }
    assert.match(text, /COMPLIANCE_CLIENT_SECRET/);
    for (const flag of [
      '--status',
      '--framework-ids',
      '--entity-ids',
      '--assignee-emails',
      '--domains',
      '--function-groupings',
      '--control-scope',
      '--fields',
    ]) {
      assert.ok(ok(controls).includes(flag), `controls list --help shows ${flag}`);
    }
    assert.match(ok(vulns), /--page-size 50\|100/);
    assert.match(ok(version), /^compliance \d+\.\d+\.\d+\n$/);
  });

  it('exit 9 when the server cannot be reached (retries shortened by flag or environment)', async () => {
    freshHome();
    const url = `http://127.0.0.1:${await closedPort()}`;
    const env = { ...service.envFor(), COMPLIANCE_BASE_URL: url };
    const [byFlag, byEnv] = await Promise.all([
      run(['frameworks', 'list', '--max-retries', '0'], env),
      run(['vulnerabilities', 'list'], { ...env, COMPLIANCE_MAX_RETRIES: '0' }),
    ]);
    // One short message with the next step, not the platform's error and its causes.
    for (const res of [byFlag, byEnv]) {
      fails(res, 9, new RegExp(`^compliance: cannot reach the service at ${url}: connection refused\n`));
      assert.match(res.stderr, /Is the service running, and listening at that address and port\?/);
      assert.match(res.stderr, /The address came from COMPLIANCE_BASE_URL; give another with --base-url URL or COMPLIANCE_BASE_URL/);
      assert.doesNotMatch(res.stderr, /fetch failed|ECONNREFUSED|at .*\.ts:\d+/);
      assert.ok(res.stderr.split('\n').length <= 5, res.stderr);
    }
    const fromFlag = await run(['frameworks', 'list', '--max-retries', '0', '--base-url', url], service.envFor());
    fails(fromFlag, 9, /The address came from --base-url;/);
  });
});
