// PostgreSQL text cannot store U+0000: a NUL in a path parameter, a query value, a JSON body or an
// upload note answers 400 validation_failed naming it (never a 500), on every engine alike.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';

for (const dialect of dialects) {
  describe(`NUL characters in input (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let evidenceId: string;
    before(async () => {
      server = await startServer({ dialect });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      token = await getToken(server.url, client);
      evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({ name: 'E', status: 'not_uploaded' });
    });
    after(() => server.close());

    const refused = (res: { status: number; body: any }, field: string) => {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.deepEqual(
        res.body.error.details.map((d: { field: string }) => d.field),
        [field],
      );
    };

    it('in a JSON body field, nested too', async () => {
      const post = (body: object) =>
        api(server.url, '/v1/vulnerabilities', token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `nul-${Math.random().toString(36).slice(2)}` },
          body: JSON.stringify(body),
        });
      const base = { vulnerabilityId: 'VUL-0001', title: 'ok', severity: 'low', status: 'open' };
      refused(await post({ ...base, title: 'a\u0000b' }), 'title');
      refused(await post({ ...base, affectedResources: [{ name: 'n\u0000', type: 't' }] }), 'affectedResources[0].name');
      const list = await api(server.url, '/v1/vulnerabilities?source=api', token);
      assert.equal(list.body.meta.totalCount, 0, 'nothing was written');
    });

    it('in a path parameter or a query value', async () => {
      refused(await api(server.url, '/v1/evidence/%00', token), 'evidenceId');
      refused(await api(server.url, '/v1/evidence?departments=%00', token), 'departments');
    });

    it('in an upload note', async () => {
      const form = new FormData();
      form.append('files', new Blob(['x']), 'a.txt');
      form.append('evidenceDate', String(Date.now() - 1000));
      form.append('note', 'a\u0000b');
      const res = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': 'nul-note' },
        body: form,
      });
      refused(res, 'note');
    });
  });
}
