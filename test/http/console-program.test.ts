// The console's program page API (POST /console/api/program) on every engine: an administrator's
// upload is planned with nothing written, then applied; the apply is in the audit log (and an
// apply that changes nothing is not); the session and CSRF rules hold; problems carry their line
// and column; and the page itself is served.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';

const PASSWORD = 'correct horse battery staple';
const UA = 'console-program-test/1.0';

const DOCUMENT = `version: 1
frameworks:
  - key: console-fw
    name: Console Framework
    requirements:
      - key: r1
        code: R-1
        name: First
`;

for (const dialect of dialects) {
  describe(`console program upload (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let organizationId: string;
    let token: string;
    let session: { cookie: string; csrf: string };

    const call = (query: string, body: unknown, csrf: string | false = session.csrf) =>
      api(server.url, `/console/api/program${query}`, undefined, {
        method: 'POST',
        headers: {
          cookie: session.cookie,
          'user-agent': UA,
          'content-type': 'application/json',
          ...(csrf === false ? {} : { 'x-csrf-token': csrf }),
        },
        body: JSON.stringify(body),
      });

    before(async () => {
      server = await startServer({ dialect });
      const client = await createOrgWithCredential(server.system, { name: 'Console Program Org', accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
      await createAdminFor({
        ctx: server.system,
        input: { organizationId, email: 'admin@example.com', password: PASSWORD },
        actor: { type: 'cli', id: null, label: 'test', ip: null, userAgent: null },
      });
      const res = await api(server.url, '/console/api/session', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': UA },
        body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      session = { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken };
    });
    after(() => server?.close());

    const auditApplies = async () => {
      const res = await api(server.url, '/console/api/audit-log', undefined, { headers: { cookie: session.cookie, 'user-agent': UA } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.filter((e: { action: string }) => e.action === 'program.apply');
    };

    test('plan writes nothing; apply writes and is in the audit log; applying again changes nothing and logs nothing', async () => {
      const plan = await call('?mode=plan', { text: DOCUMENT, fileName: 'program.yaml' });
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      assert.equal(plan.body.data.changed, true);
      assert.equal((await api(server.url, '/v1/frameworks', token)).body.data.length, 0);
      const applied = await call('?mode=apply', { text: DOCUMENT, fileName: 'program.yaml' });
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.equal(applied.body.data.counts.frameworks.created, 1);
      const frameworks = (await api(server.url, '/v1/frameworks', token)).body.data;
      assert.deepEqual(
        frameworks.map((f: { frameworkName: string }) => f.frameworkName),
        ['Console Framework'],
      );
      let entries = await auditApplies();
      assert.equal(entries.length, 1);
      assert.equal(entries[0].actor.type, 'admin');
      assert.equal(entries[0].actor.label, 'admin@example.com');
      assert.match(entries[0].target.label, /program\.yaml: 1 created/);
      const again = await call('?mode=apply', { text: DOCUMENT, fileName: 'program.yaml' });
      assert.equal(again.body.data.changed, false);
      entries = await auditApplies();
      assert.equal(entries.length, 1);
    });

    test('the CSRF header is required', async () => {
      const res = await call('?mode=plan', { text: DOCUMENT }, false);
      assert.equal(res.status, 403);
    });

    test('problems carry their JSON pointer, line and column', async () => {
      const res = await call('?mode=plan', {
        text: 'version: 1\nframeworks:\n  - key: x\n    nme: X\n    requirements: []\n',
        fileName: 'bad.yaml',
      });
      assert.equal(res.status, 400);
      const detail = res.body.error.details.find((d: { field: string }) => d.field === '/frameworks/0/nme');
      assert.ok(detail, JSON.stringify(res.body.error.details));
      assert.equal(detail.line, 4);
      assert.equal(detail.column, 5);
      assert.equal(detail.file, undefined);
    });

    test('the page is served', async () => {
      const res = await fetch(`${server.url}/console/program`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /<html/i);
    });
  });
}
