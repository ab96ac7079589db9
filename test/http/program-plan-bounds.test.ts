// Plans bound every door of the program (issue 35 item 1), on every engine, for an organization
// whose plan is `vulnerability,evidence`: PUT /v1/program and the console's program page refuse a
// document naming an excluded kind or a link to one (403 plan_restricted naming them); a plan's
// effects leave out controls and frameworks; an apply of evidence keeps the links it may not
// name; GET /v1/program and GET /v1/evidence/{id} leave the links out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { api, createAdminFor, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { exportProgram } from '../../src/domain/program/verbs.ts';

const PASSWORD = 'correct horse battery staple';
const UA = 'program-plan-bounds-test/1.0';
const RESTRICTED = 'vulnerability,evidence';

const SEED = {
  version: 1,
  frameworks: [{ key: 'fw', name: 'Framework', requirements: [{ key: 'r1', code: 'R-1', name: 'Requirement' }] }],
  controls: [
    { key: 'c1', code: 'C-1', name: 'Control one', domain: 'Access', functionGrouping: 'protect', requirements: ['fw/r1'] },
    { key: 'c2', code: 'C-2', name: 'Control two', domain: 'Access', functionGrouping: 'protect' },
  ],
  evidence: [{ key: 'e1', name: 'Access review', status: 'not_uploaded', controls: ['c1'], requirements: ['fw/r1'], tests: ['mfa'] }],
  tests: [{ key: 'mfa', name: 'MFA enforced', controls: ['c2'] }],
};

for (const dialect of dialects) {
  describe(`program documents within the plan (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let organizationId: string;
    let token: string;
    let session: { cookie: string; csrf: string };
    let evidenceId: string;

    const put = (query: string, doc: unknown) =>
      api(server.url, `/v1/program${query}`, token, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(doc),
      });
    const consoleCall = (query: string, doc: unknown) =>
      api(server.url, `/console/api/program${query}`, undefined, {
        method: 'POST',
        headers: { cookie: session.cookie, 'user-agent': UA, 'content-type': 'application/json', 'x-csrf-token': session.csrf },
        body: JSON.stringify({ text: JSON.stringify(doc), fileName: 'program.json' }),
      });
    const stored = () => exportProgram({ ctx: server.system, input: { organizationId } });

    before(async () => {
      server = await startServer({ dialect });
      const client = await createOrgWithCredential(server.system, { name: 'Restricted Program Org', accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
      const seeded = await put('?mode=apply', SEED);
      assert.equal(seeded.status, 200, JSON.stringify(seeded.body));
      evidenceId = seeded.body.data.changes.find((c: { kind: string }) => c.kind === 'evidence').id;
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan: RESTRICTED } });
      token = await getToken(server.url, client);
      await createAdminFor({
        ctx: server.system,
        input: { organizationId, email: 'plan-admin@example.com', password: PASSWORD },
        actor: { type: 'cli', id: null, label: 'test', ip: null, userAgent: null },
      });
      const res = await api(server.url, '/console/api/session', undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': UA },
        body: JSON.stringify({ email: 'plan-admin@example.com', password: PASSWORD }),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      session = { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken };
    });
    after(() => server?.close());

    test('PUT /v1/program: evidence linking to controls, requirements or tests is refused with 403 plan_restricted naming the links', async () => {
      const before = await stored();
      for (const mode of ['plan', 'apply']) {
        const res = await put(`?mode=${mode}`, {
          version: 1,
          evidence: [{ key: 'e1', name: 'Access review', controls: ['c2'], requirements: [], tests: [] }],
        });
        assert.equal(res.status, 403, `${mode}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, 'plan_restricted');
        for (const field of ['evidence[].controls', 'evidence[].requirements', 'evidence[].tests'])
          assert.match(res.body.error.message, new RegExp(field.replace(/[[\].]/g, '\\$&')), field);
      }
      assert.deepEqual(await stored(), before, 'nothing written');
    });

    test("a plan's effects leave out controls and frameworks; an apply keeps the evidence's links to them", async () => {
      const doc = { version: 1, evidence: [{ key: 'e1', name: 'Access review', status: 'uploaded' }] };
      const plan = await put('?mode=plan', doc);
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      assert.equal(plan.body.data.changed, true);
      assert.deepEqual(plan.body.data.effects, { controls: [], frameworks: [] });
      const applied = await put('?mode=apply', doc);
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.deepEqual(applied.body.data.effects, { controls: [], frameworks: [] });
      // (the next test widens the plan again and finds the links as they were)
    });

    test('GET /v1/program leaves out the link fields to excluded kinds; GET /v1/evidence/{id} leaves out their records', async () => {
      const exported = await api(server.url, '/v1/program', token);
      assert.equal(exported.status, 200, JSON.stringify(exported.body));
      assert.deepEqual(Object.keys(exported.body.data).sort(), ['customFields', 'evidence', 'version', 'vulnerabilities']);
      const [entry] = exported.body.data.evidence;
      assert.equal(entry.key, 'e1');
      for (const field of ['controls', 'requirements', 'tests']) assert.equal(entry[field], undefined, field);

      const evidence = await api(server.url, `/v1/evidence/${evidenceId}?fields=mappedTests`, token);
      assert.equal(evidence.status, 200, JSON.stringify(evidence.body));
      assert.deepEqual(evidence.body.data.mappedTests, []);
      assert.deepEqual(evidence.body.data.mappedControls, []);
      assert.deepEqual(evidence.body.data.mappedRequirements, []);
      assert.deepEqual(evidence.body.data.mappedFrameworks, []);
      const listed = await api(server.url, '/v1/evidence?fields=mappedControlIds,mappedFrameworkIds', token);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(listed.body.data[0].mappedControlIds, []);
      assert.deepEqual(listed.body.data[0].mappedFrameworkIds, []);

      // The links are still there, served at once when the plan includes them again.
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan: `${RESTRICTED},control,test,framework` } });
      const full = await api(server.url, `/v1/evidence/${evidenceId}?fields=mappedTests`, token);
      assert.deepEqual(
        full.body.data.mappedTests.map((t: { testName: string }) => t.testName),
        ['MFA enforced'],
      );
      assert.deepEqual(
        full.body.data.mappedControls.map((c: { controlName: string }) => c.controlName),
        ['Control one'],
      );
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan: RESTRICTED } });
    });

    test("the console's program page checks the plan the same way", async () => {
      const controls = await consoleCall('?mode=plan&prune=true', { version: 1, controls: [] });
      assert.equal(controls.status, 403, JSON.stringify(controls.body));
      assert.equal(controls.body.error.code, 'plan_restricted');
      assert.match(controls.body.error.message, /controls/);
      const created = await consoleCall('?mode=apply', {
        version: 1,
        controls: [{ key: 'c3', code: 'C-3', name: 'Made in the console', domain: 'Access', functionGrouping: 'protect' }],
      });
      assert.equal(created.status, 403, JSON.stringify(created.body));
      const linked = await consoleCall('?mode=apply', { version: 1, evidence: [{ key: 'e1', name: 'Access review', controls: ['c2'] }] });
      assert.equal(linked.status, 403, JSON.stringify(linked.body));
      assert.match(linked.body.error.message, /evidence\[\]\.controls/);
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan: `${RESTRICTED},control` } });
      assert.deepEqual(
        ((await stored()).controls ?? []).map((c) => c.key),
        ['c1', 'c2'],
        'no control was created',
      );
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan: RESTRICTED } });
      const within = await consoleCall('?mode=plan', {
        version: 1,
        evidence: [{ key: 'e1', name: 'Access review', status: 'not_uploaded' }],
      });
      assert.equal(within.status, 200, JSON.stringify(within.body));
      assert.deepEqual(within.body.data.effects, { controls: [], frameworks: [] });
    });
  });
}
