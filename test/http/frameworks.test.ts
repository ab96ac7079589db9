// GET /v1/frameworks over a small, exactly known data set, on every database engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';

for (const dialect of dialects) {
  describe(`GET /v1/frameworks (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    const ids: Record<string, string> = {};

    before(async () => {
      server = await startServer({ dialect });
      const client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      const f = fixtures(server.database.db, client.organizationId);
      ids.E1 = await f.entity('Payments');
      ids.E2 = await f.entity('Platform');
      const person = await f.person('Ada Admin', 'ada+grc@example.com');
      ids.A = await f.framework('Alpha Framework', { entityIds: [ids.E1], addedBy: person, tsc: ['Security'] });
      ids.B = await f.framework('Beta Framework', { entityIds: [ids.E2], nextAuditDate: Date.UTC(2026, 5, 1) });
      const ra = await f.requirement(ids.A, 'A-1');
      const rb = await f.requirement(ids.B, 'B-1');
      const c1 = await f.control('C1', { requirementIds: [ra, rb] });
      const c2 = await f.control('C2', { requirementIds: [ra] });
      const c3 = await f.control('C3', { requirementIds: [ra], scope: 'out_of_scope' });
      await f.control('C4', { requirementIds: [rb] });
      const p1 = await f.policy('published');
      const p2 = await f.policy('draft');
      const p3 = await f.policy('published', { isRelevant: false });
      const e1 = await f.evidence('uploaded');
      const e2 = await f.evidence('needs_revision');
      const t1 = await f.test('passing', { integrationFailing: true }); // reported as affected
      const t2 = await f.test('ignored');
      const t3 = await f.test('passing');
      await f.map('policy', p1, { controlIds: [c1, c3], requirementIds: [ra] });
      await f.map('policy', p2, { controlIds: [c2], requirementIds: [ra] });
      await f.map('policy', p3, { controlIds: [c2], requirementIds: [ra] });
      await f.map('evidence', e1, { controlIds: [c1], requirementIds: [ra, rb] });
      await f.map('evidence', e2, { controlIds: [c1], requirementIds: [rb] });
      await f.map('test', t1, { controlIds: [c2], requirementIds: [ra] });
      await f.map('test', t2, { controlIds: [c1], requirementIds: [rb] });
      await f.map('test', t3, { controlIds: [c1], requirementIds: [ra] });
    });
    after(() => server.close());

    test('computes complianceProgress from the stored controls and artifacts', async () => {
      const res = await api(server.url, '/v1/frameworks', token);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.data.map((f: any) => [f.frameworkName, f.complianceProgress]),
        [
          [
            'Alpha Framework',
            {
              controls: { compliant: 1, total: 2, percentage: 50 },
              policies: { published: 1, total: 2, percentage: 50 },
              evidence: { uploaded: 1, total: 1, percentage: 100 },
              tests: { passing: 1, total: 2, percentage: 50 },
            },
          ],
          [
            'Beta Framework',
            {
              controls: { compliant: 0, total: 2, percentage: 0 },
              policies: { published: 0, total: 0, percentage: 0 },
              evidence: { uploaded: 1, total: 2, percentage: 50 },
              tests: { passing: 0, total: 0, percentage: 0 },
            },
          ],
        ],
      );
    });

    test('default fields only: id, name, entities, nextAuditDate (null when unset), progress', async () => {
      const res = await api(server.url, '/v1/frameworks', token);
      const [alpha, beta] = res.body.data;
      assert.deepEqual(Object.keys(alpha).sort(), ['complianceProgress', 'entities', 'frameworkId', 'frameworkName', 'nextAuditDate']);
      assert.equal(alpha.frameworkId, ids.A);
      assert.equal(alpha.nextAuditDate, null);
      assert.equal(beta.nextAuditDate, Date.UTC(2026, 5, 1));
      assert.deepEqual(alpha.entities, [{ entityId: ids.E1, entityName: 'Payments' }]);
    });

    test('optional fields appear only when asked for; unset stamps are left out, modifiedOn is null', async () => {
      const res = await api(server.url, '/v1/frameworks?fields=addedBy,addedOn,tscSelections,modifiedOn', token);
      assert.equal(res.status, 200);
      const [alpha, beta] = res.body.data;
      assert.deepEqual(alpha.addedBy, { name: 'Ada Admin', email: 'ada+grc@example.com' });
      assert.equal(alpha.addedOn, Date.UTC(2026, 0, 1));
      assert.deepEqual(alpha.tscSelections, ['Security']);
      assert.equal(alpha.modifiedOn, null);
      assert.equal('addedBy' in beta, false);
      assert.deepEqual(beta.tscSelections, []);
      assert.equal('lastModifiedBy' in alpha, false);
    });

    test('entityIds selects frameworks linked to any of the entities', async () => {
      const one = await api(server.url, `/v1/frameworks?entityIds=${ids.E1}`, token);
      assert.deepEqual(
        one.body.data.map((f: any) => f.frameworkId),
        [ids.A],
      );
      const both = await api(server.url, `/v1/frameworks?entityIds=${ids.E2},%20${ids.E1}`, token);
      assert.deepEqual(
        both.body.data.map((f: any) => f.frameworkId),
        [ids.A, ids.B],
      );
      const none = await api(server.url, '/v1/frameworks?entityIds=00000000-0000-0000-0000-000000000000', token);
      assert.deepEqual(none.body.data, []);
    });

    test('an unknown fields value answers 400 validation_failed naming the parameter', async () => {
      const res = await api(server.url, '/v1/frameworks?fields=addedOn,complianceOverview', token);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.details[0].field, 'fields');
      assert.match(res.body.error.details[0].message, /complianceOverview/);
    });

    test('a change to the data is served at once (cached results are keyed by the data version)', async () => {
      const before = await api(server.url, '/v1/frameworks?fields=tscSelections', token);
      const client = await createOrgWithCredential(server.system, { name: 'Scratch' });
      const scratchToken = await getToken(server.url, client);
      const f = fixtures(server.database.db, client.organizationId);
      await f.framework('Gamma Framework');
      const first = await api(server.url, '/v1/frameworks', scratchToken);
      assert.deepEqual(
        first.body.data.map((x: any) => x.frameworkName),
        ['Gamma Framework'],
      );
      await f.framework('Delta Framework');
      const second = await api(server.url, '/v1/frameworks', scratchToken);
      assert.deepEqual(
        second.body.data.map((x: any) => x.frameworkName),
        ['Delta Framework', 'Gamma Framework'],
      );
      // the first organization's cached answer is untouched by the other organization's writes
      const again = await api(server.url, '/v1/frameworks?fields=tscSelections', token);
      assert.deepEqual(again.body.data, before.body.data);
    });

    test("another organization's credential sees none of these frameworks", async () => {
      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      const res = await api(server.url, '/v1/frameworks', await getToken(server.url, other));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, []);
      const filtered = await api(server.url, `/v1/frameworks?entityIds=${ids.E1}`, await getToken(server.url, other));
      assert.deepEqual(filtered.body.data, []);
    });
  });
}
