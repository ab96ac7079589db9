// compliance as a person meets it at a terminal (a real pty through util-linux `script`) and in
// the first minutes of use: what it says while it waits, tables that fit the window, one time
// format, progress on long walks, examples in every help page, shell completion, --region without
// a configured address, and `configure` checking the credential before it saves anything.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import stringWidth from 'string-width';
import { createOrgWithCredential, startServer, type TestServer } from '../../../test/harness/server.ts';
import { controlFixtures } from '../../../test/harness/fixtures-controls.ts';
import { COMMANDS, GROUP_ALIASES } from '../src/commands/index.ts';
import { commandName } from '../src/commands/command.ts';
import { ComplianceClient } from '../src/sdk.ts';
import { explain, makeHome, runCli, type CliResult } from './support/cli.ts';
import { hasScript, runAtTerminal } from './support/pty.ts';
import { startCliService, type CliService } from './support/service.ts';

const ok = (res: CliResult) => {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
};
const NO_ADDRESS = { COMPLIANCE_BASE_URL: undefined, COMPLIANCE_REGION: undefined, COMPLIANCE_TOKEN_CACHE: '0' };

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('compliance at a terminal and on first use', { concurrency: 1 }, () => {
  let s: CliService;
  const homes: string[] = [];
  const home = () => {
    const dir = makeHome();
    homes.push(dir);
    return dir;
  };

  before(async () => {
    s = await startCliService('sqlite');
  });
  after(async () => {
    await s?.close();
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('while it waits', { skip: hasScript ? false : 'util-linux script is not installed' }, () => {
    let limited: TestServer;
    let env: Record<string, string>;
    before(async () => {
      // One request per 5-second window: the next request of the window is answered 429.
      limited = await startServer({
        dialect: 'sqlite',
        env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SEC: '5', TOKEN_RATE_LIMIT_MAX: '1000' },
      });
      const cred = await createOrgWithCredential(limited.system, { accessLevel: 'read_only', name: 'Limited' });
      env = {
        COMPLIANCE_BASE_URL: limited.url,
        COMPLIANCE_CLIENT_ID: cred.clientId,
        COMPLIANCE_CLIENT_SECRET: cred.clientSecret,
        COMPLIANCE_TOKEN_CACHE: '0',
      };
    });
    after(() => limited?.close());

    // Waits for a fresh window (windows are fixed), then spends its one request, so the command's
    // request a second later is certainly refused.
    const useTheWindow = async () => {
      const sdk = new ComplianceClient({
        baseUrl: limited.url,
        clientId: env.COMPLIANCE_CLIENT_ID,
        clientSecret: env.COMPLIANCE_CLIENT_SECRET,
      });
      await sdk.auth.getAccessToken();
      const first = await sdk.frameworks.list();
      const reset = Number(first.response.headers.get('x-ratelimit-reset')) * 1000;
      if (reset - Date.now() < 3500) {
        await new Promise((resolve) => setTimeout(resolve, reset - Date.now() + 100));
        await sdk.frameworks.list();
      }
    };

    it('says "rate limited, retrying in N s (2/4)" at a terminal, then succeeds', async () => {
      await useTheWindow();
      const res = await runAtTerminal(['frameworks', 'list', '-o', 'json'], { home: home(), env });
      assert.equal(res.code, 0, res.screen);
      assert.match(res.screen, /^rate limited, retrying in [1-5] s \(2\/4\)$/m);
      assert.match(res.screen, /^\[\]$/m, 'the result follows');
    });

    it('says nothing of the kind when stderr is not a terminal (logs and pipes stay clean)', async () => {
      await useTheWindow();
      const res = await runCli(['frameworks', 'list', '-o', 'json'], { home: home(), env });
      assert.equal(res.code, 0, explain(res));
      assert.equal(res.stderr, '');
      assert.equal(res.stdout, '[]\n');
    });
  });

  describe('tables and times', () => {
    it('a table fits the terminal: names give way, IDs stay whole', { skip: hasScript ? false : 'no script' }, async () => {
      const wide = ok(await s.cli(['controls', 'list', '-o', 'table'], { env: { COLUMNS: '400' } }));
      const widest = Math.max(...wide.split('\n').map((l) => l.length));
      assert.ok(widest > 120, `with room the table is as wide as its content (${widest})`);
      const res = await runAtTerminal(['controls', 'list'], {
        home: home(),
        env: { ...s.envFor(), COMPLIANCE_TOKEN_CACHE: '0' },
        columns: 120,
      });
      assert.equal(res.code, 0, res.screen);
      const lines = res.screen.split('\n').filter((l) => l.trim() !== '');
      assert.match(lines[0], /^CONTROL ID\s+CODE\s+NAME/);
      for (const line of lines) assert.ok(line.length <= 120, `${line.length} > 120: ${line}`);
      const { data } = await s.sdk.controls.list();
      for (const c of data.slice(0, 20)) assert.ok(res.screen.includes(c.controlId), `${c.controlId} shown whole`);
      assert.match(res.screen, /…/, 'a shortened name ends in an ellipsis');
    });

    it('at 80 columns the controls table is at most 80 display columns wide, names readable, CJK and emoji included', async () => {
      // Names as wide as they come: two columns a character (CJK), emoji, combining marks.
      const wide = [
        '访问控制策略与多因素身份验证的年度审查',
        '🔐 Schlüsselverwaltung 🔑 und Rotation',
        'Zugriffsüberprüfung für privilegierte Konten',
      ];
      const fixtures = controlFixtures(s.server.database.db, s.organizationId);
      for (const [i, name] of wide.entries()) await fixtures.control({ code: `WIDE-${i + 1}`, name, domain: 'Identity and access' });
      const { data } = await s.sdk.controls.list();
      const byId = new Map(data.map((c) => [c.controlId, c]));
      const [narrow, piped, roomy] = await Promise.all([
        s.cli(['controls', 'list', '-o', 'table'], { env: { COLUMNS: '80' } }),
        s.cli(['controls', 'list', '-o', 'table']), // not a terminal and no COLUMNS: 80 as well
        s.cli(['controls', 'list', '-o', 'table'], { env: { COLUMNS: '400' } }),
      ]);
      assert.equal(ok(piped), ok(narrow));
      const lines = ok(narrow).trimEnd().split('\n');
      for (const line of lines) assert.ok(stringWidth(line) <= 80, `${stringWidth(line)} > 80: ${line}`);
      assert.match(lines[0], /^CONTROL ID\s+(CODE\s+)?NAME\s/);
      assert.match(lines[0], /STATUS/, 'the status stays');
      assert.equal(lines.length, 1 + data.length);
      // Every row starts with its whole ID, and shows at least the first 20 columns of its name.
      const nameAt = lines[0].indexOf('NAME');
      for (const line of lines.slice(1)) {
        const id = line.split(/\s+/)[0];
        const control = byId.get(id);
        assert.ok(control, `the row starts with a whole control ID: ${line}`);
        const shown = line.slice([...line].length === line.length ? nameAt : 0);
        const name = control.controlName;
        let prefix = '';
        for (const ch of name) {
          if (stringWidth(prefix + ch) > 20) break;
          prefix += ch;
        }
        assert.ok(shown.includes(prefix.trimEnd()), `"${prefix}" of "${name}" is readable in: ${line}`);
      }
      // Columns line up in display columns: NAME starts at the same display column on every row.
      for (const name of wide) {
        const line = lines.find((l) => l.includes([...name].slice(0, 6).join('')))!;
        assert.ok(line, `${name} is listed`);
        const before = line.slice(0, line.indexOf([...name].slice(0, 6).join('')));
        assert.equal(stringWidth(before), stringWidth(lines[0].slice(0, nameAt)), `aligned: ${line}`);
      }
      // --json is the data whatever the width.
      const [json80, json400] = await Promise.all([
        s.cli(['controls', 'list', '-o', 'json'], { env: { COLUMNS: '80' } }),
        s.cli(['controls', 'list', '-o', 'json'], { env: { COLUMNS: '400' } }),
      ]);
      assert.equal(ok(json80), ok(json400));
      // With room, every column is there and nothing is cut.
      assert.match(ok(roomy).split('\n')[0], /^CONTROL ID\s+CODE\s+NAME\s+DOMAIN\s+FUNCTION\s+SCOPE\s+STATUS\s+%$/);
      for (const name of wide) assert.ok(ok(roomy).includes(stringWidth(name) <= 40 ? name : `${name.slice(0, 39)}…`), name);
    });

    it('a record wraps its long text in display columns: a CJK description stays within 60', async () => {
      const writer = new ComplianceClient({
        baseUrl: s.server.url,
        clientId: s.readWrite.clientId,
        clientSecret: s.readWrite.clientSecret,
      });
      const description = '多因素身份验证未在所有管理员账户上启用，需要在下一次审计前完成。'.repeat(3);
      const { data } = await writer.vulnerabilities.create({
        vulnerabilityId: 'VUL-9601',
        title: '管理员账户缺少多因素身份验证',
        severity: 'high',
        status: 'open',
        description,
      });
      const record = ok(await s.cli(['vulns', 'get', data.vulnerabilityId, '-o', 'table'], { env: { COLUMNS: '60' } }));
      const lines = record.trimEnd().split('\n');
      for (const line of lines) assert.ok(stringWidth(line) <= 60, `${stringWidth(line)} > 60: ${line}`);
      const continued = lines.slice(lines.findIndex((l) => l.startsWith('description ')));
      const text = continued.map((l, i) => (i === 0 ? l.replace(/^description\s+/, '') : l.trim())).join('');
      assert.ok(text.startsWith(description), 'the whole description is there, in order');
    });

    it('one time format in tables and records: 2026-03-31 14:05 UTC', async () => {
      const policies = ok(await s.cli(['policies', 'list', '-o', 'table'], { env: { COLUMNS: '400' } }));
      const listed = (await s.sdk.vulnerabilities.list().toArray({ limit: 1 }))[0];
      const finding = (await s.sdk.vulnerabilities.get(listed.vulnerabilityId)).data;
      const record = ok(await s.cli(['vulns', 'get', finding.vulnerabilityId, '-o', 'table']));
      for (const text of [policies, record]) {
        const dates = text.match(/\d{4}-\d{2}-\d{2}[^\s]*( \d{2}:\d{2} UTC)?/g) ?? [];
        assert.ok(dates.length > 0, text.slice(0, 500));
        for (const d of dates) assert.match(d, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      }
      assert.match(record, new RegExp(`addedOn\\s+${new Date(finding.addedOn).toISOString().slice(0, 16).replace('T', ' ')} UTC`));
    });

    it('a long walk of findings shows its progress on stderr', async () => {
      const res = await s.cli(['vulns', 'list', '--page-size', '50', '--progress', '-o', 'ndjson']);
      const count = ok(res).trim().split('\n').length;
      assert.ok(count > 100, `${count} findings`);
      assert.match(res.stderr, new RegExp(`^vulnerabilities \\[#{30}\\] 100% \\(${count}/${count}\\)$`, 'm'));
    });
  });

  describe('help and completion', () => {
    it('every help page has examples, each naming its own command', async () => {
      const pages: Array<[string[], string[]]> = [
        [['--help'], []],
        ...[...new Set(COMMANDS.filter((c) => c.action).map((c) => c.group))].map((g): [string[], string[]] => [[g, '--help'], [g]]),
        ...COMMANDS.map((c): [string[], string[]] => [[...commandName(c).split(' '), '--help'], commandName(c).split(' ')]),
      ];
      const results = await Promise.all(pages.map(([args]) => s.cli(args)));
      const aliases = Object.entries(GROUP_ALIASES);
      for (const [i, [args, words]] of pages.entries()) {
        const text = ok(results[i]);
        const block = text.split('\nExamples:\n')[1];
        assert.ok(block, `${args.join(' ')} has an Examples section`);
        const examples = block.split('\n\n')[0].split('\n');
        assert.ok(examples.length >= 1);
        for (const line of examples) {
          let named = line.slice(line.indexOf('compliance ') + 'compliance '.length);
          for (const [alias, name] of aliases) named = named.replace(new RegExp(`^${alias} `), `${name} `);
          assert.ok(named.startsWith(words.join(' ')), `"${line}" in ${args.join(' ')}`);
        }
      }
    });

    it('bash completion completes commands, actions, flags and their values (run by bash)', async () => {
      const script = ok(await s.cli(['completion', 'bash']));
      const file = path.join(home(), 'compliance.bash');
      fs.writeFileSync(file, script);
      const complete = (line: string) => {
        const r = spawnSync(
          'bash',
          [
            '-c',
            `source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _compliance; printf '%s\\n' "\${COMPREPLY[@]}"`,
            'complete',
            file,
            line,
          ],
          { encoding: 'utf8' },
        );
        assert.equal(r.status, 0, r.stderr);
        return r.stdout.trim().split('\n').filter(Boolean).sort();
      };
      assert.deepEqual(complete('compliance vu'), ['vulnerabilities', 'vulns']);
      assert.deepEqual(complete('compliance vulns '), ['create', 'get', 'import', 'list', 'update']);
      assert.deepEqual(complete('compliance vulns import --format c'), ['cyclonedx', 'cyclonedx-xml']);
      assert.deepEqual(complete('compliance vulns import --sc'), ['--scope']);
      assert.deepEqual(complete('compliance controls list --func'), ['--function-groupings']);
      assert.deepEqual(complete('compliance controls list --status compliant,non'), ['compliant,non_compliant']);
      assert.deepEqual(
        complete('compliance vulns list --status ack'),
        ['acknowledged'],
        'the values of this command, not another --status',
      );
      assert.deepEqual(complete('compliance -o nd'), ['ndjson']);
      assert.deepEqual(complete('compliance completion '), ['bash', 'zsh']);
      assert.deepEqual(complete('compliance api --pag'), ['--paginate']);
    });

    it('zsh completion is the same function through bashcompinit', async () => {
      const script = ok(await s.cli(['completion', 'zsh']));
      assert.match(script, /^#compdef compliance\n/);
      assert.match(script, /bashcompinit/);
      assert.match(script, /complete -o default -F _compliance compliance/);
      const zsh = spawnSync('zsh', ['-n'], { input: script, encoding: 'utf8' });
      if (zsh.error === undefined) assert.equal(zsh.status, 0, zsh.stderr);
      const bash = spawnSync('bash', ['-n'], { input: script.replace(/^autoload.*$/gm, ''), encoding: 'utf8' });
      assert.equal(bash.status, 0, bash.stderr);
      const wrong = await s.cli(['completion', 'fish']);
      assert.equal(wrong.code, 2, explain(wrong));
    });
  });

  describe('--region', () => {
    it('without an address configured for the region: fails at once, saying what to set', async () => {
      const started = Date.now();
      const res = await s.cli(['frameworks', 'list', '--region', 'eu'], { env: NO_ADDRESS });
      assert.ok(Date.now() - started < 5000, 'no network attempt, no retries');
      assert.equal(res.code, 3, explain(res));
      assert.match(res.stderr, /--region asks for region "eu", but no address is configured for it: set COMPLIANCE_REGION_BASE_URLS/);
    });

    it('with the address in COMPLIANCE_REGION_BASE_URLS or the profile, the region is that address', async () => {
      const byEnv = await s.cli(['frameworks', 'list', '--region', 'eu', '-o', 'json'], {
        env: { ...NO_ADDRESS, COMPLIANCE_REGION_BASE_URLS: `us=http://127.0.0.1:1,eu=${s.server.url}` },
      });
      assert.equal(JSON.parse(ok(byEnv)).length, (await s.sdk.frameworks.list()).data.length);

      const h = home();
      const file = path.join(h, '.config', 'compliance', 'credentials');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `[default]\nregion = au\nregion_base_urls = au=${s.server.url}\n`, { mode: 0o600 });
      const byProfile = await s.cli(['whoami', '-o', 'json'], {
        home: h,
        env: { COMPLIANCE_BASE_URL: undefined, COMPLIANCE_TOKEN_CACHE: '0' },
      });
      const who = JSON.parse(ok(byProfile));
      assert.equal(who.baseUrl, s.server.url);
      assert.match(who.addressFrom, /region au; its address from region_base_urls/);

      const bad = await s.cli(['frameworks', 'list', '--region', 'eu'], {
        env: { ...NO_ADDRESS, COMPLIANCE_REGION_BASE_URLS: 'europe=https://x' },
      });
      assert.equal(bad.code, 3, explain(bad));
      assert.match(bad.stderr, /each entry is REGION=URL/);
    });
  });

  describe('configure checks before it saves', () => {
    const NONE = { COMPLIANCE_CLIENT_ID: undefined, COMPLIANCE_CLIENT_SECRET: undefined, COMPLIANCE_BASE_URL: undefined };
    const profileOf = (h: string) => path.join(h, '.config', 'compliance', 'credentials');

    it('a client ID of the wrong form, or the secret pasted as the ID, is refused and nothing written', async () => {
      const h = home();
      const [typo, swapped] = await Promise.all([
        s.cli(['configure', '--client-id', 'cds_id_tooshort', '--base-url', s.server.url], {
          home: h,
          env: NONE,
          input: `${s.readOnly.clientSecret}\n`,
        }),
        s.cli(['configure', '--client-id', s.readOnly.clientSecret, '--base-url', s.server.url], { home: h, env: NONE, input: 'x\n' }),
      ]);
      assert.equal(typo.code, 2, explain(typo));
      assert.match(typo.stderr, /a client ID is cds_id_ followed by 16 letters, digits, "-" or "_"/);
      assert.equal(swapped.code, 2, explain(swapped));
      assert.match(swapped.stderr, /that is the client secret; the client ID is the other value/);
      assert.ok(!swapped.stderr.includes(s.readOnly.clientSecret), 'the secret is not echoed back');
      assert.equal(fs.existsSync(profileOf(h)), false);
    });

    it('a secret the service refuses, or a service that cannot be reached: nothing written', async () => {
      const h = home();
      const wrong = await s.cli(['configure', '--client-id', s.readOnly.clientId, '--base-url', s.server.url], {
        home: h,
        env: NONE,
        input: 'cds_secret_not-the-right-one\n',
      });
      assert.equal(wrong.code, 3, explain(wrong));
      assert.match(wrong.stderr, /refused this client ID and secret \(invalid_client: .*\); nothing was written/);
      const url = `http://127.0.0.1:${await closedPort()}`;
      const down = await s.cli(['configure', '--client-id', s.readOnly.clientId, '--base-url', url], {
        home: h,
        env: NONE,
        input: `${s.readOnly.clientSecret}\n`,
      });
      assert.equal(down.code, 9, explain(down));
      assert.match(
        down.stderr,
        new RegExp(`cannot reach the service at ${url}: connection refused[\\s\\S]*Nothing was written; --no-verify`),
      );
      assert.equal(fs.existsSync(profileOf(h)), false);

      // --no-verify saves without asking the service.
      const offline = await s.cli(['configure', '--client-id', s.readOnly.clientId, '--base-url', url, '--no-verify'], {
        home: h,
        env: NONE,
        input: `${s.readOnly.clientSecret}\n`,
      });
      assert.equal(offline.code, 0, explain(offline));
      assert.match(fs.readFileSync(profileOf(h), 'utf8'), new RegExp(`base_url = ${url}`));
    });

    it('a working credential: a token is requested, the scopes shown, then the profile written', async () => {
      const h = home();
      const res = await s.cli(['configure', '--client-id', s.readWrite.clientId, '--base-url', s.server.url], {
        home: h,
        env: NONE,
        input: `${s.readWrite.clientSecret}\n`,
      });
      assert.equal(res.code, 0, explain(res));
      assert.match(
        res.stderr,
        new RegExp(`checked: ${s.server.url} issued a token for ${s.readWrite.clientId} \\(scopes: .*vulnerability:write`),
      );
      assert.match(res.stderr, /wrote profile "default"/);
      assert.equal(fs.statSync(profileOf(h)).mode & 0o777, 0o600);
    });
  });
});
