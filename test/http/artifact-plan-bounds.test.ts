// Plans bound every answer (issue 35 item 1), on every engine, over HTTP, for an organization whose
// plan drops controls and frameworks (`policy,test,evidence`) after its records were linked to
// them: policies' and tests' own reads (get and list) show their mappings to controls and
// frameworks empty, cached per plan, and the events feed shows the evidence, policy and test
// events recorded while the plan included them without those mappings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { readAll } from '../harness/events.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';

const FULL = 'vulnerability,evidence,policy,test,control,framework';
const RESTRICTED = 'policy,test,evidence';
const HIDDEN = ['mappedControls', 'mappedControlIds', 'mappedFrameworks', 'mappedFrameworkIds', 'mappedRequirements'];

const SEED = {
  version: 1,
  frameworks: [{ key: 'fw', name: 'Framework', requirements: [{ key: 'r1', code: 'R-1', name: 'Requirement' }] }],
  controls: [
    { key: 'c1', code: 'C-1', name: 'Control one', domain: 'Access', functionGrouping: 'protect', requirements: ['fw/r1'] },
    { key: 'c2', code: 'C-2', name: 'Control two', domain: 'Access', functionGrouping: 'protect' },
  ],
  policies: [{ key: 'p1', customId: 'POL-1', name: 'Access policy', controls: ['c1'], requirements: ['fw/r1'] }],
  tests: [{ key: 'mfa', name: 'MFA enforced', controls: ['c1'], requirements: ['fw/r1'] }],
  evidence: [{ key: 'e1', name: 'Access review', controls: ['c1'], requirements: ['fw/r1'], tests: ['mfa'] }],
};

/** The same records linked to both controls: each records an `.updated` event with the change of its mappings. */
const RELINK = {
  version: 1,
  policies: [{ key: 'p1', customId: 'POL-1', name: 'Access policy', controls: ['c1', 'c2'], requirements: ['fw/r1'] }],
  tests: [{ key: 'mfa', name: 'MFA enforced', controls: ['c1', 'c2'], requirements: ['fw/r1'] }],
  evidence: [{ key: 'e1', name: 'Access review', controls: ['c1', 'c2'], requirements: ['fw/r1'], tests: ['mfa'] }],
};

const UPDATED = 'evidence.updated,policy.updated,test.updated';

for (const dialect of dialects) {
  describe(`artifacts' mappings within the plan (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let client: Client;
    let organizationId: string;
    let token: string;
    const ids: Record<string, string> = {};

    const put = (doc: unknown) =>
      api(server.url, '/v1/program?mode=apply', token, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(doc),
      });
    const setPlan = async (plan: string) => {
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan } });
      token = await getToken(server.url, client);
    };
    const read = async (path: string) => {
      const res = await api(server.url, path, token);
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    /** The reads of this suite, each answer's records (one for a get, every item for a list). */
    const reads = () => [
      `/v1/policies/${ids.policies}`,
      '/v1/policies?fields=mappedControlIds,mappedFrameworkIds',
      `/v1/tests/${ids.tests}`,
      '/v1/tests?fields=mappedFrameworkIds',
    ];
    const records = async (path: string) => {
      const data = await read(path);
      return Array.isArray(data) ? data : [data];
    };

    before(async () => {
      server = await startServer({ dialect });
      client = await createOrgWithCredential(server.system, { name: 'Mappings Org', accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
      const seeded = await put(SEED);
      assert.equal(seeded.status, 200, JSON.stringify(seeded.body));
      for (const c of seeded.body.data.changes as { kind: string; id: string }[]) ids[c.kind] ??= c.id;
      assert.ok(ids.policies && ids.tests, JSON.stringify(ids));
      const relinked = await put(RELINK);
      assert.equal(relinked.status, 200, JSON.stringify(relinked.body));
    });
    after(() => server?.close());

    test('GET /v1/policies and /v1/tests (get and list) show the mappings to controls and frameworks empty when the plan excludes them, cached per plan', async () => {
      // with every resource: the mappings are there (and the answers are cached under this plan)
      for (const path of reads())
        for (const record of await records(path)) {
          const shown = HIDDEN.filter((f) => Array.isArray(record[f]) && record[f].length > 0);
          assert.ok(shown.length > 0, `${path} with the full plan shows the mappings: ${JSON.stringify(record)}`);
        }
      await setPlan(RESTRICTED);
      for (const path of reads())
        for (const record of await records(path))
          for (const field of HIDDEN)
            if (field in record) assert.deepEqual(record[field], [], `${path}: ${field} under a plan without controls and frameworks`);
      // the links are kept: the plan that includes them again shows them at once
      await setPlan(FULL);
      const policy = await read(`/v1/policies/${ids.policies}`);
      assert.deepEqual(policy.mappedControls.map((c: { controlName: string }) => c.controlName).sort(), ['Control one', 'Control two']);
    });

    test('GET /v1/events: evidence, policy and test events leave out the mappings to the controls and frameworks the plan excludes', async () => {
      await setPlan(FULL);
      const full = (await readAll(server, token, { types: UPDATED })).events;
      assert.deepEqual([...new Set(full.map((e) => e.type))].sort(), UPDATED.split(','), 'each record recorded an update');
      for (const event of full)
        assert.ok('mappedControls' in event.data.changes, `${event.type} names the controls: ${JSON.stringify(event.data)}`);

      await setPlan(RESTRICTED);
      const bounded = (await readAll(server, token, { types: UPDATED })).events;
      assert.equal(bounded.length, full.length, 'the same events');
      for (const event of bounded)
        for (const field of HIDDEN) assert.ok(!(field in event.data.changes), `${event.type}: ${field} in ${JSON.stringify(event.data)}`);
      const text = JSON.stringify(bounded);
      for (const name of ['Control one', 'Control two', 'C-1', 'C-2', 'R-1']) assert.ok(!text.includes(name), `${name} in the feed`);
    });
  });
}
