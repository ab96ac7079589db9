// GET /v1/controls and GET /v1/controls/{controlId} over a small, exactly known organization, on
// every database engine: every filter alone and combined, every `fields` value, every expansion
// with exact shapes, the status recomputed under `frameworkIds`, errors and security cases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { controlFixtures, T0, T1 } from '../harness/fixtures-controls.ts';
import { CONTROL_OPTIONAL_FIELDS } from '../../src/domain/controls/list.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';

const env = { RATE_LIMIT_MAX: '100000' };
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface World {
  people: Record<'ada' | 'bob' | 'cy', string>;
  entities: Record<'payments' | 'platform', string>;
  frameworks: Record<'A' | 'B', string>;
  controls: Record<'C1' | 'C2' | 'C3' | 'C4' | 'C5', string>;
  risks: Record<'breach' | 'outage', string>;
}

const ada = { name: 'Ada Admin', email: 'ada+grc@example.com' };
const bob = { name: 'Bob Builder', email: 'Bob.Builder@Example.com' };
const cy = { name: 'Cy Clerk', email: 'cy@example.com' };

/**
 * Frameworks A (requirements; entity Payments) and B (B-1; entity Platform). Controls,
 * by name: C1 Access reviews (A and B), C2 Backup testing (A), C3 Change management (A, out of
 * scope), C4 Detection rules (B, no artifact), C5 Endpoint protection (no framework).
 */
async function seedWorld(server: TestServer, organizationId: string): Promise<World> {
  const db = server.database.db;
  const f = fixtures(db, organizationId);
  const c = controlFixtures(db, organizationId);
  const people = {
    ada: await f.person(ada.name, ada.email),
    bob: await f.person(bob.name, bob.email),
    cy: await f.person(cy.name, cy.email),
  };
  const entities = { payments: await f.entity('Payments'), platform: await f.entity('Platform') };
  const frameworks = {
    A: await f.framework('Alpha Framework', { entityIds: [entities.payments] }),
    B: await f.framework('Beta Framework', { entityIds: [entities.platform] }),
  };
  const a1 = await f.requirement(frameworks.A, 'A-1');
  const a2 = await f.requirement(frameworks.A, 'A-2');
  const b1 = await f.requirement(frameworks.B, 'B-1');
  const risks = { breach: await c.risk('Data breach'), outage: await c.risk('Vendor outage') };
  const controls = {
    C1: await c.control({
      code: 'CTL-001',
      name: 'Access reviews',
      description: 'Quarterly review of who has access.',
      domain: 'Identity Management',
      functionGrouping: 'protect',
      questions: ['Who reviews access?', 'How are leavers removed?'],
      addedBy: people.ada,
      addedOn: T0,
      lastModifiedBy: people.bob,
      modifiedOn: T1,
      requirementIds: [b1, a1],
      assignees: [people.ada, people.bob],
      entityIds: [entities.platform, entities.payments],
      riskIds: [risks.outage, risks.breach],
    }),
    C2: await c.control({
      code: 'CTL-002',
      name: 'Backup testing',
      domain: 'Data Security',
      functionGrouping: 'recover',
      requirementIds: [a2],
      assignees: [people.bob],
      entityIds: [entities.platform],
    }),
    C3: await c.control({
      code: 'CTL-003',
      name: 'Change management',
      domain: 'identity management',
      functionGrouping: 'protect',
      scope: 'out_of_scope',
      outOfScopeReason: 'No production changes in scope',
      markedOutOfScopeBy: people.cy,
      requirementIds: [a1],
    }),
    C4: await c.control({
      code: 'CTL-004',
      name: 'Detection rules',
      domain: 'Continuous Monitoring',
      functionGrouping: 'detect',
      requirementIds: [b1],
    }),
    C5: await c.control({ code: 'CTL-005', name: 'Endpoint protection', domain: 'Platform Security', functionGrouping: 'protect' }),
  };
  // C1: 2 of 4 relevant artifacts complete overall; over A 2 of 2 (policy, test); over B 1 of 3
  // (evidence, the same test, a cloud test).
  const p1 = await c.policy({ name: 'Access Control Policy', status: 'published', entityIds: [entities.payments] });
  await c.map('policy', p1, { controlIds: [controls.C1], requirementIds: [a1] });
  const e1 = await c.evidence({
    name: 'Access review export',
    status: 'needs_revision',
    entityIds: [entities.platform, entities.payments],
  });
  await c.map('evidence', e1, { controlIds: [controls.C1], requirementIds: [b1] });
  const t1 = await c.test({ name: 'MFA enforced', result: 'passing' });
  await c.map('test', t1, { controlIds: [controls.C1], requirementIds: [a1, b1] });
  const t2 = await c.test({ name: 'Cloud audit logging', result: 'fix_required', kind: 'cloud' });
  await c.map('test', t2, { controlIds: [controls.C1], requirementIds: [b1] });
  // C1: irrelevant artifacts (listed, not counted)
  const p2 = await c.policy({ name: 'Legacy Access Policy', status: 'draft', isRelevant: false, notRelevantReason: 'Superseded' });
  await c.map('policy', p2, { controlIds: [controls.C1] });
  const t3 = await c.test({ name: 'Old VPN check', result: 'ignored', ignoreReason: 'VPN retired' });
  await c.map('test', t3, { controlIds: [controls.C1], requirementIds: [a1] });
  // C2: 1 of 3 complete (33 %): an affected test, uploaded evidence, a policy pending approval.
  const t4 = await c.test({ name: 'Backup job monitored', result: 'passing', integrationFailing: true });
  const e2 = await c.evidence({ name: 'Backup restore report', status: 'uploaded' });
  const p3 = await c.policy({ name: 'Backup Policy', status: 'pending_approval' });
  for (const [type, id] of [
    ['test', t4],
    ['evidence', e2],
    ['policy', p3],
  ] as const) {
    await c.map(type, id, { controlIds: [controls.C2], requirementIds: [a2] });
  }
  // C3 (out of scope) has a complete artifact; C5 has one mapped to no framework.
  const p4 = await c.policy({ name: 'Change Policy', status: 'published' });
  await c.map('policy', p4, { controlIds: [controls.C3], requirementIds: [a1] });
  const e3 = await c.evidence({ name: 'EDR coverage report', status: 'uploaded' });
  await c.map('evidence', e3, { controlIds: [controls.C5] });
  return { people, entities, frameworks, controls, risks };
}

function defaults(w: World) {
  const payments = { entityId: w.entities.payments, entityName: 'Payments' };
  const platform = { entityId: w.entities.platform, entityName: 'Platform' };
  return {
    C1: {
      controlId: w.controls.C1,
      controlCode: 'CTL-001',
      controlName: 'Access reviews',
      controlDomain: 'Identity Management',
      functionGrouping: 'protect',
      controlScope: 'in_scope',
      status: 'non_compliant',
      controlCompliancePercentage: 50,
      assignees: [
        { ...ada, isPrimary: true },
        { ...bob, isPrimary: false },
      ],
      entities: [payments, platform],
    },
    C2: {
      controlId: w.controls.C2,
      controlCode: 'CTL-002',
      controlName: 'Backup testing',
      controlDomain: 'Data Security',
      functionGrouping: 'recover',
      controlScope: 'in_scope',
      status: 'non_compliant',
      controlCompliancePercentage: 33,
      assignees: [{ ...bob, isPrimary: true }],
      entities: [platform],
    },
    C3: {
      controlId: w.controls.C3,
      controlCode: 'CTL-003',
      controlName: 'Change management',
      controlDomain: 'identity management',
      functionGrouping: 'protect',
      controlScope: 'out_of_scope',
      status: 'not_applicable',
      controlCompliancePercentage: 'not_applicable',
      assignees: [],
      entities: [],
    },
    C4: {
      controlId: w.controls.C4,
      controlCode: 'CTL-004',
      controlName: 'Detection rules',
      controlDomain: 'Continuous Monitoring',
      functionGrouping: 'detect',
      controlScope: 'in_scope',
      status: 'not_applicable',
      controlCompliancePercentage: 'not_applicable',
      assignees: [],
      entities: [],
    },
    C5: {
      controlId: w.controls.C5,
      controlCode: 'CTL-005',
      controlName: 'Endpoint protection',
      controlDomain: 'Platform Security',
      functionGrouping: 'protect',
      controlScope: 'in_scope',
      status: 'compliant',
      controlCompliancePercentage: 100,
      assignees: [],
      entities: [],
    },
  };
}

type Name = 'C1' | 'C2' | 'C3' | 'C4' | 'C5';
const ALL: Name[] = ['C1', 'C2', 'C3', 'C4', 'C5'];

/** Each optional list field's value per control; a control without an entry has the key left out. */
function optionalValues(w: World): Record<(typeof CONTROL_OPTIONAL_FIELDS)[number], Partial<Record<Name, unknown>>> {
  return {
    mappedFrameworkIds: { C1: [w.frameworks.A, w.frameworks.B], C2: [w.frameworks.A], C3: [w.frameworks.A], C4: [w.frameworks.B], C5: [] },
    outOfScopeReason: { C3: 'No production changes in scope' },
    markedOutOfScopeBy: { C3: cy },
    addedBy: { C1: ada },
    addedOn: { C1: T0, C2: T0, C3: T0, C4: T0, C5: T0 },
    lastModifiedBy: { C1: bob },
    modifiedOn: { C1: T1, C2: null, C3: null, C4: null, C5: null },
  };
}

for (const dialect of dialects) {
  describe(`GET /v1/controls (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let w: World;
    let otherToken: string;
    let otherControlId: string;
    const get = (path: string, t = token) => api(server.url, path, t);
    const ids = (res: { body: any }) => res.body.data.map((c: any) => c.controlId);
    const named = (...names: Name[]) => names.map((n) => w.controls[n]);

    before(async () => {
      server = await startServer({ dialect, env });
      const client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      w = await seedWorld(server, client.organizationId);
      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      otherToken = await getToken(server.url, other);
      otherControlId = (await seedWorld(server, other.organizationId)).controls.C1;
    });
    after(() => server.close());

    test('default list: every control ordered by name then ID, exactly the default fields, status over all frameworks', async () => {
      const res = await get('/v1/controls');
      assert.equal(res.status, 200);
      assert.match(res.body.meta.requestId, /^req_/);
      const d = defaults(w);
      assert.deepEqual(
        res.body.data,
        ALL.map((n) => d[n]),
      );
    });

    for (const field of CONTROL_OPTIONAL_FIELDS) {
      test(`fields=${field} adds exactly that field, left out where it has no value`, async () => {
        const res = await get(`/v1/controls?fields=${field}`);
        assert.equal(res.status, 200);
        const d = defaults(w);
        const values = optionalValues(w)[field];
        assert.deepEqual(
          res.body.data,
          ALL.map((n) => (n in values ? { ...d[n], [field]: values[n] } : d[n])),
        );
      });
    }

    test('every optional field at once, with spaces around the commas', async () => {
      const res = await get(`/v1/controls?fields=${CONTROL_OPTIONAL_FIELDS.join(',%20')}`);
      assert.equal(res.status, 200);
      const d = defaults(w);
      const values = optionalValues(w);
      const expected = ALL.map((n) => {
        const item: Record<string, unknown> = { ...d[n] };
        for (const field of CONTROL_OPTIONAL_FIELDS) if (n in values[field]) item[field] = values[field][n];
        return item;
      });
      assert.deepEqual(res.body.data, expected);
    });

    test('frameworkIds keeps the controls mapped to the framework and computes status over its artifacts only', async () => {
      const a = await get(`/v1/controls?frameworkIds=${w.frameworks.A}`);
      const summary = (res: { body: any }) => res.body.data.map((c: any) => [c.controlName, c.status, c.controlCompliancePercentage]);
      assert.deepEqual(summary(a), [
        ['Access reviews', 'compliant', 100],
        ['Backup testing', 'non_compliant', 33],
        ['Change management', 'not_applicable', 'not_applicable'],
      ]);
      const b = await get(`/v1/controls?frameworkIds=${w.frameworks.B}`);
      assert.deepEqual(summary(b), [
        ['Access reviews', 'non_compliant', 33],
        ['Detection rules', 'not_applicable', 'not_applicable'],
      ]);
      // both: controls mapped to either; an artifact counts when mapped to either
      const both = await get(`/v1/controls?frameworkIds=${w.frameworks.B},${w.frameworks.A}`);
      assert.deepEqual(summary(both), [
        ['Access reviews', 'non_compliant', 50],
        ['Backup testing', 'non_compliant', 33],
        ['Change management', 'not_applicable', 'not_applicable'],
        ['Detection rules', 'not_applicable', 'not_applicable'],
      ]);
      // the other fields are those of the unfiltered list
      const d = defaults(w);
      assert.deepEqual(a.body.data[0], { ...d.C1, status: 'compliant', controlCompliancePercentage: 100 });
    });

    test('frameworkIds with an unknown ID matches nothing, and changes nothing next to a known one', async () => {
      assert.deepEqual((await get(`/v1/controls?frameworkIds=${UNKNOWN_ID}`)).body.data, []);
      const mixed = await get(`/v1/controls?frameworkIds=${w.frameworks.A},${UNKNOWN_ID}`);
      assert.deepEqual(mixed.body.data, (await get(`/v1/controls?frameworkIds=${w.frameworks.A}`)).body.data);
    });

    test('status filters on the computed status, any of the values', async () => {
      assert.deepEqual(ids(await get('/v1/controls?status=compliant')), named('C5'));
      assert.deepEqual(ids(await get('/v1/controls?status=non_compliant')), named('C1', 'C2'));
      assert.deepEqual(ids(await get('/v1/controls?status=not_applicable')), named('C3', 'C4'));
      assert.deepEqual(ids(await get('/v1/controls?status=not_applicable,%20compliant')), named('C3', 'C4', 'C5'));
    });

    test('status applies to the status recomputed under frameworkIds', async () => {
      assert.deepEqual(ids(await get(`/v1/controls?frameworkIds=${w.frameworks.A}&status=compliant`)), named('C1'));
      assert.deepEqual(ids(await get(`/v1/controls?frameworkIds=${w.frameworks.B}&status=compliant`)), []);
      assert.deepEqual(ids(await get(`/v1/controls?frameworkIds=${w.frameworks.B}&status=non_compliant`)), named('C1'));
      assert.deepEqual(
        ids(await get(`/v1/controls?frameworkIds=${w.frameworks.A}&status=non_compliant,not_applicable`)),
        named('C2', 'C3'),
      );
    });

    test('entityIds selects controls linked to any of the entities', async () => {
      assert.deepEqual(ids(await get(`/v1/controls?entityIds=${w.entities.payments}`)), named('C1'));
      assert.deepEqual(ids(await get(`/v1/controls?entityIds=${w.entities.platform}`)), named('C1', 'C2'));
      assert.deepEqual(ids(await get(`/v1/controls?entityIds=${w.entities.payments},${w.entities.platform}`)), named('C1', 'C2'));
      assert.deepEqual(ids(await get(`/v1/controls?entityIds=${UNKNOWN_ID}`)), []);
    });

    test('assigneeEmails matches any assignee email case-insensitively; + arrives as %2B', async () => {
      assert.deepEqual(ids(await get('/v1/controls?assigneeEmails=ada%2Bgrc@example.com')), named('C1'));
      assert.deepEqual(ids(await get('/v1/controls?assigneeEmails=ADA%2BGRC@EXAMPLE.COM')), named('C1'));
      assert.deepEqual(ids(await get('/v1/controls?assigneeEmails=bob.builder@example.com')), named('C1', 'C2'));
      assert.deepEqual(ids(await get('/v1/controls?assigneeEmails=cy@example.com')), []); // cy marked C3 out of scope, assigns nothing
      assert.deepEqual(ids(await get('/v1/controls?assigneeEmails=nobody@example.com,%20ada%2Bgrc@example.com')), named('C1'));
    });

    test('domains matches controlDomain case-insensitively, any of the names', async () => {
      assert.deepEqual(ids(await get('/v1/controls?domains=identity%20management')), named('C1', 'C3'));
      assert.deepEqual(ids(await get('/v1/controls?domains=IDENTITY%20MANAGEMENT')), named('C1', 'C3'));
      assert.deepEqual(ids(await get('/v1/controls?domains=data%20security,Continuous%20Monitoring')), named('C2', 'C4'));
      assert.deepEqual(ids(await get('/v1/controls?domains=Identity')), []); // whole names only
    });

    test('functionGroupings and controlScope select by their values', async () => {
      assert.deepEqual(ids(await get('/v1/controls?functionGroupings=protect')), named('C1', 'C3', 'C5'));
      assert.deepEqual(ids(await get('/v1/controls?functionGroupings=detect,recover')), named('C2', 'C4'));
      assert.deepEqual(ids(await get('/v1/controls?functionGroupings=govern')), []);
      assert.deepEqual(ids(await get('/v1/controls?controlScope=out_of_scope')), named('C3'));
      assert.deepEqual(ids(await get('/v1/controls?controlScope=in_scope')), named('C1', 'C2', 'C4', 'C5'));
      assert.deepEqual(ids(await get('/v1/controls?controlScope=in_scope,out_of_scope')), named(...ALL));
    });

    test('different filters combine as AND', async () => {
      assert.deepEqual(ids(await get(`/v1/controls?functionGroupings=protect&controlScope=in_scope`)), named('C1', 'C5'));
      assert.deepEqual(ids(await get(`/v1/controls?domains=identity%20management&status=not_applicable`)), named('C3'));
      assert.deepEqual(ids(await get(`/v1/controls?entityIds=${w.entities.platform}&assigneeEmails=ada%2Bgrc@example.com`)), named('C1'));
      assert.deepEqual(ids(await get(`/v1/controls?frameworkIds=${w.frameworks.A}&entityIds=${w.entities.platform}`)), named('C1', 'C2'));
      assert.deepEqual(
        ids(
          await get(
            `/v1/controls?frameworkIds=${w.frameworks.A}&entityIds=${w.entities.platform}&status=compliant&functionGroupings=protect`,
          ),
        ),
        named('C1'),
      );
      assert.deepEqual(ids(await get(`/v1/controls?frameworkIds=${w.frameworks.B}&controlScope=out_of_scope`)), []);
      const all = await get(
        `/v1/controls?frameworkIds=${w.frameworks.A},${w.frameworks.B}&status=non_compliant&entityIds=${w.entities.payments}` +
          `&assigneeEmails=bob.builder@example.com&domains=identity%20management&functionGroupings=protect&controlScope=in_scope&fields=mappedFrameworkIds`,
      );
      assert.deepEqual(all.body.data, [{ ...defaults(w).C1, mappedFrameworkIds: [w.frameworks.A, w.frameworks.B] }]);
    });

    test('framework progress agrees with the list filtered by the framework', async () => {
      const frameworks = (await get('/v1/frameworks')).body.data;
      assert.deepEqual(
        frameworks.map((f: any) => [f.frameworkName, f.complianceProgress.controls]),
        [
          ['Alpha Framework', { compliant: 1, total: 2, percentage: 50 }],
          ['Beta Framework', { compliant: 0, total: 2, percentage: 0 }],
        ],
      );
      for (const f of frameworks) {
        const list = (await get(`/v1/controls?frameworkIds=${f.frameworkId}`)).body.data;
        const inScope = list.filter((c: any) => c.controlScope === 'in_scope');
        assert.equal(f.complianceProgress.controls.total, inScope.length, f.frameworkName);
        assert.equal(f.complianceProgress.controls.compliant, inScope.filter((c: any) => c.status === 'compliant').length, f.frameworkName);
      }
    });

    const invalid: Array<[string, string, RegExp]> = [
      ['status=compliant,partially_compliant', 'status', /partially_compliant/],
      ['status=', 'status', /empty/],
      ['fields=addedOn,complianceOverview', 'fields', /complianceOverview/],
      ['fields=controlDescription', 'fields', /controlDescription/],
      ['functionGroupings=protect,defend', 'functionGroupings', /defend/],
      ['controlScope=partially_in_scope', 'controlScope', /partially_in_scope/],
      ['frameworkIds=a,,b', 'frameworkIds', /empty/],
      ['entityIds=', 'entityIds', /./],
      ['assigneeEmails=%20', 'assigneeEmails', /./],
      ['domains=,', 'domains', /./],
      ['framework=x', 'framework', /not a known parameter/],
      ['status=compliant&status=non_compliant', 'status', /once/],
    ];
    for (const [query, field, message] of invalid) {
      test(`?${query} answers 400 validation_failed naming ${field}`, async () => {
        const res = await get(`/v1/controls?${query}`);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'validation_failed');
        const detail = res.body.error.details.find((d: any) => d.field === field);
        assert.ok(detail, JSON.stringify(res.body.error.details));
        assert.match(detail.message, message);
      });
    }

    test("another organization's credential sees none of these controls", async () => {
      const res = await get('/v1/controls', otherToken);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 5);
      assert.ok(res.body.data.every((c: any) => !Object.values(w.controls).includes(c.controlId)));
      assert.deepEqual((await get(`/v1/controls?frameworkIds=${w.frameworks.A}`, otherToken)).body.data, []);
      assert.deepEqual((await get(`/v1/controls?entityIds=${w.entities.payments}`, otherToken)).body.data, []);
    });

    test('without a token 401; with a plan that excludes controls 403 plan_restricted', async () => {
      assert.equal((await get('/v1/controls', '')).status, 401);
      const restricted = await createOrgWithCredential(server.system, { name: 'Frameworks only', plan: 'framework' });
      const res = await get('/v1/controls', await getToken(server.url, restricted));
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'plan_restricted');
      const one = await get(`/v1/controls/${w.controls.C1}`, await getToken(server.url, restricted));
      assert.equal(one.body.error.code, 'plan_restricted');
    });

    test('a change to the data is served at once (statuses are recomputed after every write)', async () => {
      const client = await createOrgWithCredential(server.system, { name: 'Scratch' });
      const scratch = await getToken(server.url, client);
      const f = fixtures(server.database.db, client.organizationId);
      const c = controlFixtures(server.database.db, client.organizationId);
      const framework = await f.framework('Gamma Framework');
      const requirement = await f.requirement(framework, 'G-1');
      const control = await c.control({ code: 'CTL-100', name: 'Gamma control', requirementIds: [requirement] });
      const status = async (query = '') => (await get(`/v1/controls${query}`, scratch)).body.data.map((x: any) => x.status);
      assert.deepEqual(await status(), ['not_applicable']);
      const policy = await c.policy({ name: 'Gamma policy', status: 'draft' });
      await c.map('policy', policy, { controlIds: [control], requirementIds: [requirement] });
      assert.deepEqual(await status(), ['non_compliant']);
      assert.deepEqual(await status(`?frameworkIds=${framework}`), ['non_compliant']);
      await c.setPolicyStatus(policy, 'published');
      assert.deepEqual(await status(), ['compliant']);
      assert.deepEqual(await status(`?frameworkIds=${framework}`), ['compliant']);
      await c.control({ code: 'CTL-101', name: 'Another control' });
      assert.deepEqual(await status(), ['not_applicable', 'compliant']);
    });

    // ---- GET /v1/controls/{controlId} ----

    function detailOfC1() {
      const d = defaults(w);
      return {
        ...d.C1,
        controlDescription: 'Quarterly review of who has access.',
        mappedFrameworks: [
          { frameworkId: w.frameworks.A, frameworkName: 'Alpha Framework' },
          { frameworkId: w.frameworks.B, frameworkName: 'Beta Framework' },
        ],
        controlQuestions: ['Who reviews access?', 'How are leavers removed?'],
        addedBy: ada,
        addedOn: T0,
        lastModifiedBy: bob,
        modifiedOn: T1,
        mappedRequirements: [
          { frameworkName: 'Alpha Framework', requirementCode: 'A-1', requirementName: 'Requirement A-1' },
          { frameworkName: 'Beta Framework', requirementCode: 'B-1', requirementName: 'Requirement B-1' },
        ],
      };
    }

    test('get-one: the list fields plus description, frameworks, questions, authorship and requirements', async () => {
      const res = await get(`/v1/controls/${w.controls.C1}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, detailOfC1());
    });

    test('get-one: values that are not recorded are left out; modifiedOn is null; arrays are empty', async () => {
      const d = defaults(w);
      const c2 = await get(`/v1/controls/${w.controls.C2}`);
      assert.deepEqual(c2.body.data, {
        ...d.C2,
        mappedFrameworks: [{ frameworkId: w.frameworks.A, frameworkName: 'Alpha Framework' }],
        controlQuestions: [],
        addedOn: T0,
        modifiedOn: null,
        mappedRequirements: [{ frameworkName: 'Alpha Framework', requirementCode: 'A-2', requirementName: 'Requirement A-2' }],
      });
      const c3 = await get(`/v1/controls/${w.controls.C3}`);
      assert.equal(c3.body.data.outOfScopeReason, 'No production changes in scope');
      assert.equal('markedOutOfScopeBy' in c3.body.data, false); // not a get-one field
      const c5 = await get(`/v1/controls/${w.controls.C5}`);
      assert.deepEqual(c5.body.data.mappedFrameworks, []);
      assert.deepEqual(c5.body.data.mappedRequirements, []);
    });

    test('fields=complianceOverview: status and percentage per mapped framework, with the framework entities', async () => {
      const res = await get(`/v1/controls/${w.controls.C1}?fields=complianceOverview`);
      assert.deepEqual(res.body.data, {
        ...detailOfC1(),
        complianceOverview: [
          {
            frameworkName: 'Alpha Framework',
            entities: [{ entityId: w.entities.payments, entityName: 'Payments' }],
            controlStatus: 'compliant',
            artifactCompliancePercentage: 100,
          },
          {
            frameworkName: 'Beta Framework',
            entities: [{ entityId: w.entities.platform, entityName: 'Platform' }],
            controlStatus: 'non_compliant',
            artifactCompliancePercentage: 33,
          },
        ],
      });
      const c3 = await get(`/v1/controls/${w.controls.C3}?fields=complianceOverview`);
      assert.deepEqual(c3.body.data.complianceOverview, [
        {
          frameworkName: 'Alpha Framework',
          entities: [{ entityId: w.entities.payments, entityName: 'Payments' }],
          controlStatus: 'not_applicable',
          artifactCompliancePercentage: 'not_applicable',
        },
      ]);
      const c5 = await get(`/v1/controls/${w.controls.C5}?fields=complianceOverview`);
      assert.deepEqual(c5.body.data.complianceOverview, []);
    });

    test('complianceOverview agrees with the list filtered by each framework', async () => {
      for (const name of ALL) {
        const one = (await get(`/v1/controls/${w.controls[name]}?fields=complianceOverview`)).body.data;
        for (const [i, framework] of one.mappedFrameworks.entries()) {
          const listed = (await get(`/v1/controls?frameworkIds=${framework.frameworkId}`)).body.data.find(
            (c: any) => c.controlId === one.controlId,
          );
          assert.deepEqual(
            [one.complianceOverview[i].controlStatus, one.complianceOverview[i].artifactCompliancePercentage],
            [listed.status, listed.controlCompliancePercentage],
          );
        }
      }
    });

    test('fields=mappedArtifacts: policies, evidence and automated tests (no cloud test), with their own status and relevance', async () => {
      const res = await get(`/v1/controls/${w.controls.C1}?fields=mappedArtifacts`);
      const payments = { entityId: w.entities.payments, entityName: 'Payments' };
      const platform = { entityId: w.entities.platform, entityName: 'Platform' };
      assert.deepEqual(res.body.data, {
        ...detailOfC1(),
        mappedArtifacts: [
          {
            name: 'Access Control Policy',
            artifactType: 'policy',
            artifactStatus: 'published',
            entities: [payments],
            frameworks: ['Alpha Framework'],
            isRelevant: true,
          },
          {
            name: 'Legacy Access Policy',
            artifactType: 'policy',
            artifactStatus: 'draft',
            entities: [],
            frameworks: [],
            isRelevant: false,
            justification: 'Superseded',
          },
          {
            name: 'Access review export',
            artifactType: 'evidence',
            artifactStatus: 'needs_revision',
            entities: [payments, platform],
            frameworks: ['Beta Framework'],
            isRelevant: true,
          },
          {
            name: 'MFA enforced',
            artifactType: 'test',
            artifactStatus: 'passing',
            entities: [],
            frameworks: ['Alpha Framework', 'Beta Framework'],
            isRelevant: true,
          },
          {
            name: 'Old VPN check',
            artifactType: 'test',
            artifactStatus: 'ignored',
            entities: [],
            frameworks: ['Alpha Framework'],
            isRelevant: false,
            justification: 'VPN retired',
          },
        ],
      });
      const c2 = await get(`/v1/controls/${w.controls.C2}?fields=mappedArtifacts`);
      assert.deepEqual(
        c2.body.data.mappedArtifacts.map((a: any) => [a.artifactType, a.name, a.artifactStatus, a.isRelevant]),
        [
          ['policy', 'Backup Policy', 'pending_approval', true],
          ['evidence', 'Backup restore report', 'uploaded', true],
          ['test', 'Backup job monitored', 'affected', true],
        ],
      );
      const c4 = await get(`/v1/controls/${w.controls.C4}?fields=mappedArtifacts`);
      assert.deepEqual(c4.body.data.mappedArtifacts, []);
    });

    test('fields=mappedRisks: the risks linked to the control, by name', async () => {
      const res = await get(`/v1/controls/${w.controls.C1}?fields=mappedRisks`);
      assert.deepEqual(res.body.data, {
        ...detailOfC1(),
        mappedRisks: [
          { riskId: w.risks.breach, riskName: 'Data breach' },
          { riskId: w.risks.outage, riskName: 'Vendor outage' },
        ],
      });
      assert.deepEqual((await get(`/v1/controls/${w.controls.C2}?fields=mappedRisks`)).body.data.mappedRisks, []);
    });

    test('every expansion at once', async () => {
      const all = (await get(`/v1/controls/${w.controls.C1}?fields=mappedRisks,%20complianceOverview,mappedArtifacts`)).body.data;
      const parts = await Promise.all(
        ['complianceOverview', 'mappedArtifacts', 'mappedRisks'].map(
          async (f) => (await get(`/v1/controls/${w.controls.C1}?fields=${f}`)).body.data[f],
        ),
      );
      assert.deepEqual(all, { ...detailOfC1(), complianceOverview: parts[0], mappedArtifacts: parts[1], mappedRisks: parts[2] });
    });

    test("the plan bounds the expansions: mappedArtifacts leaves out the artifact kinds the plan excludes; complianceOverview keeps the rule's status", async () => {
      const client = await createOrgWithCredential(server.system, { name: 'Controls only', plan: 'control' });
      const world = await seedWorld(server, client.organizationId);
      const controlOnly = await getToken(server.url, client);
      const full = (await get(`/v1/controls/${w.controls.C1}?fields=complianceOverview,mappedArtifacts`)).body.data;
      const kinds = (data: any) => data.mappedArtifacts.map((a: any) => [a.artifactType, a.name]);

      const bounded = (await get(`/v1/controls/${world.controls.C1}?fields=complianceOverview,mappedArtifacts`, controlOnly)).body.data;
      assert.deepEqual(bounded.mappedArtifacts, [], 'no policy, evidence or test under a control-only plan');
      const statuses = (data: any) =>
        data.complianceOverview.map((o: any) => [o.frameworkName, o.controlStatus, o.artifactCompliancePercentage]);
      assert.deepEqual(statuses(bounded), statuses(full), "the status per framework is the rule's, as the list shows it");
      assert.equal(bounded.status, full.status);

      // A plan change is served at once (the cached answer of the old plan is not reused).
      await updateOrganizationPlan({ ctx: server.system, input: { organizationId: client.organizationId, plan: 'control,test' } });
      const withTests = (await get(`/v1/controls/${world.controls.C1}?fields=mappedArtifacts`, controlOnly)).body.data;
      assert.deepEqual(kinds(withTests), [
        ['test', 'MFA enforced'],
        ['test', 'Old VPN check'],
      ]);
      await updateOrganizationPlan({
        ctx: server.system,
        input: { organizationId: client.organizationId, plan: 'control,policy,evidence' },
      });
      const withDocs = (await get(`/v1/controls/${world.controls.C1}?fields=mappedArtifacts`, controlOnly)).body.data;
      assert.deepEqual(kinds(withDocs), [
        ['policy', 'Access Control Policy'],
        ['policy', 'Legacy Access Policy'],
        ['evidence', 'Access review export'],
      ]);
    });

    test("get-one answers 404 not_found for an unknown ID and for another organization's control", async () => {
      for (const id of [UNKNOWN_ID, 'not-a-uuid', otherControlId]) {
        const res = await get(`/v1/controls/${id}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body.error, { code: 'not_found', message: 'Control was not found.', details: [] });
      }
      assert.equal((await get(`/v1/controls/${otherControlId}`, otherToken)).status, 200);
    });

    test('get-one answers 400 for an unknown fields value or parameter', async () => {
      for (const [query, field] of [
        ['fields=complianceOverview,mappedFrameworkIds', 'fields'],
        ['fields=', 'fields'],
        [`frameworkIds=${w.frameworks.A}`, 'frameworkIds'],
      ]) {
        const res = await get(`/v1/controls/${w.controls.C1}?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.details[0].field, field);
      }
    });
  });
}
