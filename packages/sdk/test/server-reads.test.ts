// Every read endpoint through the SDK against the real service on every engine, over the demo
// organization: each filter kind (lists of known values, lists of IDs and emails, booleans,
// numbers, `fields`), get-one with expansions, the errors the spec lists, and the same bytes as
// a plain HTTP request would get.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api } from '../../../test/harness/server.ts';
import { NotFoundError, PermissionDeniedError, ValidationError, type ComplianceClient } from '../src/index.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

const nonEmpty = <T>(items: T[], what: string): T[] => {
  assert.ok(items.length > 0, `${what}: the demo data should match something`);
  return items;
};

for (const dialect of dialects) {
  describe(`SDK reads against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;

    before(async () => {
      svc = await startDemoService(dialect);
      sdk = svc.readOnly;
    });
    after(() => svc.close());

    test('POST /oauth/token: a bearer token with the read scopes of a Read Only credential', async () => {
      const token = await sdk.auth.requestToken();
      assert.match(token.access_token, /^cds_at_/);
      assert.equal(token.token_type, 'Bearer');
      assert.equal(token.expires_in, 3600);
      const scopes = token.scope.split(' ');
      for (const s of ['framework:read', 'control:read', 'policy:read', 'evidence:read', 'test:read', 'vulnerability:read'])
        assert.ok(scopes.includes(s), s);
      assert.ok(!scopes.includes('vulnerability:write'));
      assert.equal(token.response.headers.get('cache-control'), 'no-store');
    });

    test('frameworks: list, fields, entityIds', async () => {
      const all = await sdk.frameworks.list();
      nonEmpty(all.data, 'frameworks');
      assert.equal(all.meta.requestId, all.response.requestId);
      assert.equal(all.response.status, 200);
      for (const f of all.data) assert.equal(f.addedOn, undefined, 'optional fields only when asked');
      const withFields = await sdk.frameworks.list({ fields: ['addedOn', 'tscSelections'] });
      for (const f of withFields.data) {
        assert.equal(typeof f.addedOn, 'number');
        assert.ok(Array.isArray(f.tscSelections));
      }
      const entityId = nonEmpty(
        all.data.flatMap((f) => f.entities),
        'entities',
      )[0].entityId;
      const linked = await sdk.frameworks.list({ entityIds: [entityId] });
      nonEmpty(linked.data, 'frameworks of an entity');
      for (const f of linked.data) assert.ok(f.entities.some((e) => e.entityId === entityId));
    });

    test('controls: every filter, and get with every expansion', async () => {
      const all = (await sdk.controls.list({ fields: ['mappedFrameworkIds'] })).data;
      nonEmpty(all, 'controls');
      for (const status of ['compliant', 'non_compliant', 'not_applicable'] as const) {
        const { data } = await sdk.controls.list({ status: [status] });
        for (const c of nonEmpty(data, status)) assert.equal(c.status, status);
      }
      const protect = (await sdk.controls.list({ functionGroupings: ['protect', 'detect'], controlScope: ['in_scope'] })).data;
      for (const c of nonEmpty(protect, 'protect/detect in scope')) {
        assert.ok(['protect', 'detect'].includes(c.functionGrouping));
        assert.equal(c.controlScope, 'in_scope');
      }
      const domain = all[0].controlDomain;
      for (const c of nonEmpty((await sdk.controls.list({ domains: [domain.toUpperCase()] })).data, 'domain'))
        assert.equal(c.controlDomain, domain);
      const email = nonEmpty(
        all.flatMap((c) => c.assignees),
        'assignees',
      )[0].email;
      for (const c of nonEmpty((await sdk.controls.list({ assigneeEmails: [email] })).data, 'assignee'))
        assert.ok(c.assignees.some((a) => a.email === email));
      const entityId = nonEmpty(
        all.flatMap((c) => c.entities),
        'entities',
      )[0].entityId;
      for (const c of nonEmpty((await sdk.controls.list({ entityIds: [entityId] })).data, 'entity'))
        assert.ok(c.entities.some((e) => e.entityId === entityId));
      const frameworkId = nonEmpty(
        all.flatMap((c) => c.mappedFrameworkIds ?? []),
        'mapped frameworks',
      )[0];
      const mapped = (await sdk.controls.list({ frameworkIds: [frameworkId], fields: ['mappedFrameworkIds', 'addedOn'] })).data;
      for (const c of nonEmpty(mapped, 'framework')) {
        assert.ok(c.mappedFrameworkIds?.includes(frameworkId));
        assert.equal(typeof c.addedOn, 'number');
      }

      const one = await sdk.controls.get(all[0].controlId, { fields: ['complianceOverview', 'mappedArtifacts', 'mappedRisks'] });
      assert.equal(one.data.controlId, all[0].controlId);
      assert.ok(Array.isArray(one.data.complianceOverview));
      assert.ok(Array.isArray(one.data.mappedArtifacts));
      assert.ok(Array.isArray(one.data.mappedRisks));
      assert.ok(Array.isArray(one.data.mappedRequirements));
    });

    test('policies: enum, ID, email, boolean, department and date filters; get with expansions', async () => {
      const all = (await sdk.policies.list({ fields: ['mappedFrameworkIds', 'mappedControlIds', 'publishedOn'] })).data;
      nonEmpty(all, 'policies');
      for (const c of nonEmpty((await sdk.policies.list({ status: ['published', 'draft'] })).data, 'status'))
        assert.ok(['published', 'draft'].includes(c.status));
      const relevant = (await sdk.policies.list({ isRelevant: true })).data;
      const irrelevant = (await sdk.policies.list({ isRelevant: false })).data;
      assert.ok(relevant.every((p) => p.isRelevant) && irrelevant.every((p) => !p.isRelevant));
      assert.equal(relevant.length + irrelevant.length, all.length);
      const unassigned = (await sdk.policies.list({ departments: ['No Department'] })).data;
      for (const p of unassigned) assert.equal(p.department, undefined);
      const department = nonEmpty(
        all.filter((p) => p.department),
        'departments',
      )[0].department!;
      for (const p of nonEmpty((await sdk.policies.list({ departments: [department.toLowerCase()] })).data, 'department'))
        assert.equal(p.department, department);
      const approver = nonEmpty(
        all.flatMap((p) => p.approvers),
        'approvers',
      )[0].email;
      for (const p of nonEmpty((await sdk.policies.list({ approverEmails: [approver.toUpperCase()] })).data, 'approver'))
        assert.ok(p.approvers.some((a) => a.email === approver));
      const dates = all
        .map((p) => p.nextReviewDate)
        .filter((d): d is number => d !== null)
        .sort((a, b) => a - b);
      const [from, to] = [dates[Math.floor(dates.length / 4)], dates[Math.floor((3 * dates.length) / 4)]];
      const window = (await sdk.policies.list({ nextReviewAtFrom: from, nextReviewAtTo: to })).data;
      for (const p of nonEmpty(window, 'review window')) assert.ok(p.nextReviewDate! >= from && p.nextReviewDate! <= to);
      const controlId = nonEmpty(
        all.flatMap((p) => p.mappedControlIds ?? []),
        'mapped controls',
      )[0];
      for (const p of nonEmpty((await sdk.policies.list({ controlIds: [controlId], fields: ['mappedControlIds'] })).data, 'control'))
        assert.ok(p.mappedControlIds?.includes(controlId));
      const frameworkId = all.flatMap((p) => p.mappedFrameworkIds ?? [])[0];
      for (const p of nonEmpty(
        (await sdk.policies.list({ frameworkIds: [frameworkId], fields: ['mappedFrameworkIds'] })).data,
        'framework',
      ))
        assert.ok(p.mappedFrameworkIds?.includes(frameworkId));

      const one = await sdk.policies.get(all[0].policyId, { fields: ['documents', 'versionHistory', 'tickets', 'aiDetectedGaps'] });
      assert.equal(one.data.policyId, all[0].policyId);
      assert.ok(Array.isArray(one.data.documents) && Array.isArray(one.data.versionHistory) && Array.isArray(one.data.tickets));
    });

    test('evidence: filters and get with attachments, gaps, mapped tests, tickets', async () => {
      const all = (await sdk.evidence.list({ fields: ['ticketsCount', 'recurrence'] })).data;
      nonEmpty(all, 'evidence');
      for (const e of all) assert.equal(typeof e.ticketsCount, 'number');
      for (const e of nonEmpty((await sdk.evidence.list({ status: ['needs_revision', 'uploaded'] })).data, 'status'))
        assert.ok(['needs_revision', 'uploaded'].includes(e.status));
      const email = nonEmpty(
        all.flatMap((e) => e.assignees),
        'assignees',
      )[0].email;
      for (const e of nonEmpty((await sdk.evidence.list({ assigneeEmails: [email], isRelevant: true })).data, 'assignee')) {
        assert.ok(e.assignees.some((a) => a.email === email));
        assert.equal(e.isRelevant, true);
      }
      const uploaded = nonEmpty(
        all.filter((e) => e.status === 'uploaded'),
        'uploaded evidence',
      )[0];
      const one = await sdk.evidence.get(uploaded.evidenceId, { fields: ['attachments', 'gaps', 'mappedTests', 'tickets'] });
      assert.equal(one.data.evidenceId, uploaded.evidenceId);
      assert.ok(
        Array.isArray(one.data.attachments) &&
          Array.isArray(one.data.gaps) &&
          Array.isArray(one.data.mappedTests) &&
          Array.isArray(one.data.tickets),
      );
    });

    test('tests: filters and get with resourceStatus and expansions', async () => {
      const all = (await sdk.tests.list({ fields: ['mappedFrameworkIds', 'ticketsCount'] })).data;
      nonEmpty(all, 'tests');
      for (const status of ['ignored', 'fix_required', 'passing', 'affected'] as const) {
        for (const t of nonEmpty((await sdk.tests.list({ status: [status] })).data, status)) assert.equal(t.status, status);
      }
      const app = nonEmpty(
        all.flatMap((t) => t.applications),
        'applications',
      )[0].name;
      for (const t of nonEmpty((await sdk.tests.list({ applications: [app.toLowerCase()] })).data, 'application'))
        assert.ok(t.applications.some((a) => a.name === app));
      const frameworkId = nonEmpty(
        all.flatMap((t) => t.mappedFrameworkIds ?? []),
        'frameworks',
      )[0];
      for (const t of nonEmpty((await sdk.tests.list({ frameworkIds: [frameworkId], fields: ['mappedFrameworkIds'] })).data, 'framework'))
        assert.ok(t.mappedFrameworkIds?.includes(frameworkId));

      const failing = all.find((t) => t.status === 'fix_required')!;
      const one = await sdk.tests.get(failing.testId, {
        resourceStatus: ['fix_required', 'passing'],
        fields: ['tickets', 'mappedRisks', 'testHistory'],
      });
      assert.equal(one.data.testId, failing.testId);
      for (const r of one.data.resources) assert.ok(['fix_required', 'passing'].includes(r.status));
      assert.ok(Array.isArray(one.data.testHistory) && Array.isArray(one.data.tickets) && Array.isArray(one.data.mappedRisks));
    });

    test('vulnerabilities: list filters, and get by the encoded or decoded ID with affected resources', async () => {
      const page = await sdk.vulnerabilities.listPage({ count: 100, fields: ['cvssScore', 'resourcesCount', 'firstSeen'] });
      assert.equal(page.data.length, 100);
      assert.equal(typeof page.meta.nextCursor, 'string');
      const total = page.meta.totalCount;
      const filtered = await sdk.vulnerabilities
        .list({ status: ['open', 'risk'], severity: ['critical', 'high'], source: ['aws', 'github', 'snyk', 'api'] })
        .toArray({ limit: 10_000 });
      for (const v of nonEmpty(filtered, 'filtered findings')) {
        assert.ok(['open', 'risk'].includes(v.status));
        assert.ok(['critical', 'high'].includes(v.severity));
        assert.ok(['aws', 'github', 'snyk', 'api'].includes(v.source));
      }
      const yes = (await sdk.vulnerabilities.listPage({ fixAvailable: ['yes'] })).meta.totalCount;
      const no = (await sdk.vulnerabilities.listPage({ fixAvailable: ['no'] })).meta.totalCount;
      assert.ok(yes > 0 && no > 0 && yes + no <= total);

      const withResources = page.data.find((v) => (v.resourcesCount ?? 0) > 0)!;
      const id = withResources.vulnerabilityId;
      assert.match(id, /%23/);
      const byEncoded = await sdk.vulnerabilities.get(id, {
        fields: ['affectedResources', 'tickets', 'mappedRisks'],
        resourceStatus: ['open', 'closed', 'acknowledged', 'ignored', 'risk'],
      });
      assert.equal(byEncoded.data.vulnerabilityId, id);
      assert.equal(byEncoded.data.affectedResources?.length, withResources.resourcesCount);
      const byDecoded = await sdk.vulnerabilities.get(decodeURIComponent(id));
      assert.equal(byDecoded.data.vulnerabilityId, id);
      assert.equal(byDecoded.data.affectedResources, undefined);
    });

    test('answers carry the same data as a plain HTTP request', async () => {
      const token = await sdk.auth.getAccessToken();
      assert.match(token, /^cds_at_/);
      const raw = await api(svc.server.url, '/v1/controls?status=non_compliant&functionGroupings=protect&fields=addedOn', token);
      const viaSdk = await sdk.controls.list({ status: ['non_compliant'], functionGroupings: ['protect'], fields: ['addedOn'] });
      assert.deepEqual(viaSdk.data, raw.body.data);
      assert.deepEqual(JSON.parse(JSON.stringify(viaSdk)).data, raw.body.data, 'response is not enumerable, so JSON is the body');
      assert.deepEqual(Object.keys(viaSdk), ['data', 'meta']);
    });

    test('errors: not_found, validation_failed with details, forbidden; each with its request ID', async () => {
      await assert.rejects(sdk.controls.get('00000000-0000-0000-0000-000000000000'), (err: unknown) => {
        assert.ok(err instanceof NotFoundError);
        assert.equal(err.status, 404);
        assert.equal(err.code, 'not_found');
        assert.match(err.requestId ?? '', /^req_/);
        assert.equal(err.headers.get('x-request-id'), err.requestId);
        return true;
      });
      await assert.rejects(sdk.vulnerabilities.get('api%2523VUL-0001'), NotFoundError, 'an ID encoded twice is not found');
      await assert.rejects(sdk.vulnerabilities.listPage({ nextCursor: 'not-a-cursor' }), (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.equal(err.code, 'validation_failed');
        assert.ok(
          err.details.some((d) => 'field' in d && d.field === 'nextCursor'),
          JSON.stringify(err.details),
        );
        return true;
      });
      // Values the types rule out still reach the service from JavaScript callers: its answer is thrown.
      await assert.rejects(
        sdk.controls.list({ status: ['bogus' as never] }),
        (err: unknown) => err instanceof ValidationError && err.details.some((d) => 'field' in d && d.field === 'status'),
      );
      await assert.rejects(
        sdk.vulnerabilities.create({ vulnerabilityId: 'VUL-9999', title: 't', severity: 'low', status: 'open' }),
        (err: unknown) => {
          assert.ok(err instanceof PermissionDeniedError);
          assert.equal(err.code, 'forbidden');
          return true;
        },
      );
    });
  });
}
