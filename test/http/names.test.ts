// Names people read, on every database engine: upload file names lose control and invisible
// formatting characters (Unicode Cc and Cf: bidi overrides, zero-width characters, C1 controls),
// credential names typed in the console are refused with them, and both are stored in NFC. Then
// the same rule for names given to `cds` (organizations, credentials), run as a real process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli } from '../harness/process.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';

type Res = Awaited<ReturnType<typeof api>>;
const show = (res: Res) => `${res.status} ${JSON.stringify(res.body)}`;
const PASSWORD = 'correct horse battery staple';
const env = { RATE_LIMIT_MAX: '10000' };
const invisibleMessage =
  'must not contain control or invisible formatting characters (such as line breaks, tabs, zero-width spaces or direction overrides)';

let keySeq = 0;
const newKey = () => `names-${Date.now().toString(36)}-${++keySeq}`;

/** A multipart body with one file part named `filename` (UTF-8, as browsers send it) and an evidence date. */
function uploadBody(filename: string, boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      'utf8',
    ),
    Buffer.from('content'),
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${Date.now() - 60_000}\r\n--${boundary}--\r\n`,
    ),
  ]);
}

for (const dialect of dialects) {
  describe(`names people read (${dialect})`, () => {
    let server: TestServer;
    let client: Client;
    let token: string;

    before(async () => {
      server = await startServer({ dialect, env });
      client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      token = await getToken(server.url, client);
    });
    after(() => server?.close());

    describe('upload file names: control and invisible characters removed, NFC', () => {
      const cases: Array<[label: string, sent: string, stored: string]> = [
        ['a right-to-left override (U+202E) that disguises the extension', 'invoice\u202Egnp.txt', 'invoicegnp.txt'],
        ['a zero-width space (U+200B) and a zero-width joiner (U+200D)', 're\u200Bport\u200D.txt', 'report.txt'],
        // (C0 controls such as ESC cannot reach a name: the multipart parser refuses them in headers)
        [
          'C1 controls: next line (U+0085) and the terminal\u2019s control sequence introducer (U+009B)',
          'log\u0085\u009B31m.txt',
          'log31m.txt',
        ],
        ['a byte-order mark (U+FEFF) and a left-to-right isolate (U+2066)', '\uFEFFnotes\u2066.md', 'notes.md'],
        ['decomposed (NFD) accents', 'Cafe\u0301 re\u0301sume\u0301.txt', 'Caf\u00e9 r\u00e9sum\u00e9.txt'],
      ];
      for (const [label, sent, stored] of cases) {
        test(`${label} → stored as ${JSON.stringify(stored)}`, async () => {
          const evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({
            name: `Evidence ${newKey()}`,
            status: 'not_uploaded',
          });
          const boundary = 'names-boundary';
          const res = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
            method: 'POST',
            headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': newKey() },
            body: uploadBody(sent, boundary),
          });
          assert.equal(res.status, 201, show(res));
          const got = await api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
          assert.deepEqual(
            got.body.data.attachments.map((a: { displayName: string }) => a.displayName),
            [stored],
          );
        });
      }

      test('a file name made only of invisible characters is refused as nameless', async () => {
        const evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({
          name: `Evidence ${newKey()}`,
          status: 'not_uploaded',
        });
        const res = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=b', 'idempotency-key': newKey() },
          body: uploadBody('\u202E\u200B', 'b'),
        });
        assert.equal(res.status, 400, show(res));
        assert.deepEqual(res.body.error.details, [{ field: 'files', message: 'every file needs a file name' }]);
      });
    });

    describe('console credential names: refused with control or invisible characters, stored in NFC', () => {
      let cookie: string;
      let csrf: string;
      const create = (name: string) =>
        api(server.url, '/console/api/credentials', undefined, {
          method: 'POST',
          headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
          body: JSON.stringify({ name, accessLevel: 'read_only' }),
        });
      const names = async () => {
        const res = await api(server.url, '/console/api/credentials', undefined, { headers: { cookie } });
        assert.equal(res.status, 200, show(res));
        return res.body.data.map((c: { name: string }) => c.name);
      };

      before(async () => {
        const email = `admin-${newKey()}@example.com`;
        await createAdminFor({
          ctx: server.system,
          input: { organizationId: client.organizationId, email, password: PASSWORD },
          actor: { type: 'cli', id: null, label: 'test', ip: null, userAgent: null },
        });
        const res = await api(server.url, '/console/api/session', undefined, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        assert.equal(res.status, 200, show(res));
        cookie = res.headers.get('set-cookie')!.split(';')[0];
        csrf = res.body.data.csrfToken;
      });

      for (const [label, name] of [
        ['a zero-width space (U+200B)', 'CI\u200Bpipeline'],
        ['a C1 control (U+0085)', 'CI\u0085pipeline'],
        ['a right-to-left override (U+202E)', 'CI pipeline \u202Eetirw'],
        ['a line break inside', 'CI\npipeline'],
        ['an ANSI escape', 'CI \u001B[2Jpipeline'],
      ] as const) {
        test(`${label} → 400 naming name; nothing created`, async () => {
          const before = await names();
          const res = await create(name);
          assert.equal(res.status, 400, show(res));
          assert.equal(res.body.error.code, 'validation_failed');
          assert.deepEqual(res.body.error.details, [{ field: 'name', message: invisibleMessage }]);
          assert.deepEqual(await names(), before);
        });
      }

      test('decomposed (NFD) input is stored and shown in NFC; surrounding white space is trimmed', async () => {
        const res = await create('  Re\u0301sume\u0301 sync\t');
        assert.equal(res.status, 201, show(res));
        assert.equal(res.body.data.name, 'R\u00e9sum\u00e9 sync');
        assert.ok((await names()).includes('R\u00e9sum\u00e9 sync'));
        const row = await server.database.db.kysely
          .selectFrom('credentials')
          .select('name')
          .where('id', '=', res.body.data.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.name, 'R\u00e9sum\u00e9 sync');
      });
    });

    test('organization names given to the domain are refused with invisible characters and stored in NFC', async () => {
      await assert.rejects(createOrganization({ ctx: server.system, input: { name: 'Acme\u202ECorp' } }), (err: any) => {
        assert.equal(err.code, 'validation_failed');
        assert.deepEqual(err.details, [{ field: 'name', message: invisibleMessage }]);
        return true;
      });
      const org = await createOrganization({ ctx: server.system, input: { name: 'Cafe\u0301 GmbH' } });
      assert.equal(org.name, 'Caf\u00e9 GmbH');
    });
  });
}

describe('cds refuses names with control or invisible characters', () => {
  let database: TestDatabase;
  let cliEnv: Record<string, string>;
  before(async () => {
    database = await createTestDatabase('sqlite');
    cliEnv = { ...database.env, REGION: 'us' };
  });
  after(() => database?.drop());

  test('org create --name with U+202E and credential create --name with U+0085 exit 1 naming name; nothing created', async () => {
    const org = await runCli(['org', 'create', '--name', 'Acme\u202ECorp'], cliEnv);
    assert.equal(org.code, 1, org.stderr);
    assert.match(org.stderr, /validation_failed: [^\n]*\n {2}name must not contain control or invisible formatting characters/);
    const orgId = (await createOrganization({ ctx: { db: database.db, region: 'us', now: Date.now }, input: { name: 'Acme' } })).id;
    const cred = await runCli(['credential', 'create', '--org', orgId, '--access', 'read_only', '--name', 'CI\u0085'], cliEnv);
    assert.equal(cred.code, 1, cred.stderr);
    assert.match(cred.stderr, /validation_failed: [^\n]*\n {2}name must not contain control or invisible formatting characters/);
    const counts = await database.db.kysely
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(counts.n), 0);
    const orgs = await database.db.kysely.selectFrom('organizations').select('name').execute();
    assert.deepEqual(
      orgs.map((o) => o.name),
      ['Acme'],
    );
  });
});
