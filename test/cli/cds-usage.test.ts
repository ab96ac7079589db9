// How `cds` is used, as a real child process: help for every command level (stdout, exit 0, no
// database touched), unknown commands and flags with a suggestion (exit 2), missing required flags
// and arguments named (exit 2), and `--org` by an organization's ID or its exact name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli, type CliResult } from '../harness/process.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, `exit ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  return res.stdout;
}

function usageError(res: CliResult): string {
  assert.equal(res.code, 2, `exit ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  assert.equal(res.stdout, '');
  return res.stderr;
}

describe('cds help and usage errors', { concurrency: 4 }, () => {
  // Help and usage errors never open the database: this path cannot be created.
  const env = { SQLITE_PATH: '/dev/null/cds.sqlite' };
  const cds = (...args: string[]) => runCli(args, env);

  it('cds help, --help and -h print the usage to stdout and exit 0', async () => {
    for (const args of [['help'], ['--help'], ['-h']]) {
      const out = ok(await cds(...args));
      assert.match(out, /Usage: cds <command>/);
      assert.match(out, /credential create/);
    }
  });

  it('cds <group> --help prints the group usage and exits 0', async () => {
    for (const args of [
      ['credential', '--help'],
      ['credential', '-h'],
      ['help', 'credential'],
    ]) {
      const out = ok(await cds(...args));
      assert.match(out, /Usage: cds credential <command>/);
      assert.match(out, /create/);
      assert.match(out, /list/);
      assert.match(out, /revoke/);
    }
  });

  it('cds <group> <command> --help prints the command usage with its options and exits 0', async () => {
    for (const args of [
      ['credential', 'create', '--help'],
      ['help', 'credential', 'create'],
      ['credential', 'create', '--org', 'x', '--help'],
    ]) {
      const out = ok(await cds(...args));
      assert.match(out, /Usage: cds credential create --org ORG --access read_only\|read_write/);
      assert.match(out, /--name NAME/);
      assert.match(out, /--json/);
    }
    for (const args of [
      ['migrate', '--help'],
      ['demo', '--help'],
      ['org', 'update', '--help'],
      ['admin', 'create', '--help'],
    ]) {
      const out = ok(await cds(...args));
      assert.match(out, new RegExp(`Usage: cds ${args.slice(0, -1).join(' ')}`));
    }
  });

  it('an unknown command suggests the closest one and exits 2', async () => {
    const err = usageError(await cds('credntial', 'list'));
    assert.match(err, /Unknown command "credntial"/);
    assert.match(err, /Did you mean "credential"\?/);
    assert.match(err, /Usage: cds <command>/);
  });

  it('an unknown subcommand suggests the closest one and exits 2', async () => {
    const err = usageError(await cds('org', 'lsit'));
    assert.match(err, /Unknown org command "lsit"/);
    assert.match(err, /Did you mean "list"\?/);
    assert.match(err, /Usage: cds org <command>/);
  });

  it('a group without its command is a usage error naming the commands', async () => {
    const err = usageError(await cds('admin'));
    assert.match(err, /create, list, reset-password/);
    assert.match(err, /Usage: cds admin <command>/);
  });

  it('an unknown flag suggests the closest one and exits 2', async () => {
    const err = usageError(await cds('org', 'list', '--jsn'));
    assert.match(err, /Unknown option "--jsn"/);
    assert.match(err, /Did you mean "--json"\?/);
    assert.match(err, /Usage: cds org list/);
  });

  it('a flag of another command is unknown here (exit 2)', async () => {
    const err = usageError(await cds('org', 'list', '--plan', 'framework'));
    assert.match(err, /Unknown option "--plan"/);
  });

  it('a missing required flag exits 2 naming the flag', async () => {
    assert.match(usageError(await cds('credential', 'list')), /--org/);
    assert.match(usageError(await cds('org', 'create')), /--name/);
    assert.match(usageError(await cds('admin', 'list')), /--org/);
  });

  it('a missing or extra argument exits 2', async () => {
    assert.match(usageError(await cds('credential', 'revoke')), /ID/);
    assert.match(usageError(await cds('org', 'update', '--plan', 'framework')), /ORG/);
    assert.match(usageError(await cds('org', 'list', 'extra')), /Unexpected argument "extra"/);
  });

  it('a flag value that cannot be read exits 2', async () => {
    assert.match(usageError(await cds('demo', '--scale', 'lots')), /--scale must be a positive number/);
    assert.match(usageError(await cds('demo', '--as-of', 'March 3')), /--as-of must be an ISO 8601 date or date-time/);
    assert.match(usageError(await cds('credential', 'list', '--org')), /--org/);
  });
});

describe('cds --org by ID or name', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`cds --org (${dialect})`, { concurrency: 1 }, () => {
      let database: TestDatabase;
      let env: Record<string, string>;
      const ids: Record<string, string> = {};
      const cds = (...args: string[]) => runCli(args, env);

      before(async () => {
        database = await createTestDatabase(dialect);
        env = { ...database.env, REGION: 'us' };
        for (const name of ['Acme Corp', 'Twin', 'Twin']) {
          const org = JSON.parse(ok(await cds('org', 'create', '--name', name, '--json')));
          ids[name === 'Twin' && ids.Twin ? 'Twin2' : name] = org.id;
        }
      });
      after(async () => {
        await database?.drop();
      });

      it('--org takes the exact name of an organization', async () => {
        const c = JSON.parse(ok(await cds('credential', 'create', '--org', 'Acme Corp', '--access', 'read_only', '--json')));
        assert.equal(c.organizationId, ids['Acme Corp']);
        const list = JSON.parse(ok(await cds('credential', 'list', '--org', 'Acme Corp', '--json')));
        assert.deepEqual(
          list.map((x: { id: string }) => x.id),
          [c.id],
        );
        const admin = JSON.parse(
          ok(
            await runCli(['admin', 'create', '--org', 'Acme Corp', '--email', 'ada@example.com', '--json'], env, {
              stdin: 'a long enough password\n',
            }),
          ),
        );
        assert.equal(admin.organizationId, ids['Acme Corp']);
        assert.equal(JSON.parse(ok(await cds('admin', 'list', '--org', 'Acme Corp', '--json'))).length, 1);
      });

      it('--org still takes the ID; org update takes the name or the ID', async () => {
        const list = JSON.parse(ok(await cds('credential', 'list', '--org', ids['Acme Corp'], '--json')));
        assert.equal(list.length, 1);
        const org = JSON.parse(ok(await cds('org', 'update', 'Acme Corp', '--plan', 'framework', '--json')));
        assert.equal(org.id, ids['Acme Corp']);
        assert.deepEqual(org.plan, ['framework']);
      });

      it('a name two organizations share is a usage error listing their IDs (exit 2)', async () => {
        const err = usageError(await cds('credential', 'list', '--org', 'Twin'));
        assert.ok(err.includes(ids.Twin) && err.includes(ids.Twin2), err);
      });

      it('a name no organization has is not found (exit 4)', async () => {
        const res = await cds('credential', 'list', '--org', 'acme corp');
        assert.equal(res.code, 4, res.stderr);
        assert.match(res.stderr, /not_found/);
      });
    });
  }
});

describe('cds modules', () => {
  it('no command module imports the entry point (no import cycle)', () => {
    const root = path.resolve(import.meta.dirname, '../../src/cli');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'main.ts');
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      assert.doesNotMatch(text, /from '(\.\.?\/)+main\.ts'/, `${file} imports main.ts`);
    }
  });

  it('the server does not import the CLI', () => {
    const text = fs.readFileSync(path.resolve(import.meta.dirname, '../../src/main.ts'), 'utf8');
    assert.doesNotMatch(text, /from '\.\/cli\//);
  });
});
