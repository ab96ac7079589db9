// The controls' compliance on the demo organization (src/demo/generate.ts), on every database
// engine: the snapshot loader agrees with the shared loaders of test/harness/compliance.ts over
// every set of frameworks, and framework progress agrees with the controls list.
import { INITIAL_DATA_VERSIONS } from '../../src/shared/data-versions.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { loadComplianceGraph, loadControlNodes } from '../harness/compliance.ts';
import { controlCompliance } from '../../src/domain/compliance/rules.ts';
import { controlsSnapshot, complianceGraph } from '../../src/domain/controls/snapshot.ts';

const env = { RATE_LIMIT_MAX: '100000' };

for (const dialect of dialects) {
  describe(`controls compliance on the demo organization (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let organizationId: string;
    before(async () => {
      server = await startServer({ dialect, env });
      const client = await createOrgWithCredential(server.system);
      organizationId = client.organizationId;
      await loadDemoData(server.database.db, organizationId, { scale: 1 });
      token = await getToken(server.url, client);
    });
    after(() => server.close());

    test('the snapshot loader gives the statuses the shared loaders of compliance.ts give, over every set of frameworks', async () => {
      const db = server.database.db;
      const [graph, nodes] = await Promise.all([
        loadComplianceGraph(db.kysely, organizationId),
        loadControlNodes(db.kysely, organizationId),
      ]);
      const frameworkIds = (
        await db.kysely.selectFrom('frameworks').select('id').where('organization_id', '=', organizationId).execute()
      ).map((f) => f.id);
      const actor = {
        organizationId,
        credentialId: 'test',
        scopes: new Set(['control:read']),
        plan: new Set(['control']),
        dataVersions: INITIAL_DATA_VERSIONS,
      };
      const ctx = { ...server.system, actor };
      const snapshot = await controlsSnapshot(ctx);
      assert.equal(snapshot.nodes.size, nodes.size);
      const subsets = [undefined, ...frameworkIds.map((f) => [f]), frameworkIds.slice(0, 2), frameworkIds];
      let compared = 0;
      for (const subset of subsets) {
        const { graph: scoped, scope } = await complianceGraph(ctx, snapshot, subset);
        for (const [id, node] of nodes) {
          const expected = controlCompliance(node, graph, subset && new Set(subset));
          const actual = controlCompliance(snapshot.nodes.get(id)!, scoped, scope);
          assert.deepEqual(actual, expected, `control ${id} over ${subset ?? 'all frameworks'}`);
          compared++;
        }
      }
      assert.equal(compared, nodes.size * subsets.length);
    });

    test('framework progress agrees with the controls list filtered by each framework', async () => {
      const frameworks = (await api(server.url, '/v1/frameworks', token)).body.data;
      assert.equal(frameworks.length, 3);
      for (const f of frameworks) {
        const list = (await api(server.url, `/v1/controls?frameworkIds=${f.frameworkId}`, token)).body.data;
        const inScope = list.filter((c: any) => c.controlScope === 'in_scope');
        assert.ok(inScope.length > 0);
        assert.equal(f.complianceProgress.controls.total, inScope.length, f.frameworkName);
        assert.equal(f.complianceProgress.controls.compliant, inScope.filter((c: any) => c.status === 'compliant').length, f.frameworkName);
      }
      const statuses = new Set((await api(server.url, '/v1/controls', token)).body.data.map((c: any) => c.status));
      assert.deepEqual([...statuses].sort(), ['compliant', 'non_compliant', 'not_applicable']);
    });
  });
}
