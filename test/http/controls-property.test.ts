// A property test of GET /v1/controls on every database engine: for random small organizations
// (controls, policies, evidence, automated and cloud tests, their mappings to controls and
// requirements, people, entities) and random filter combinations, every answer equals what an
// oracle written here from docs/decisions/resources.md and the spec expects: the same controls, in the same order,
// with the same fields, statuses and percentages. A filter without frameworkIds must give the
// unfiltered list filtered by its rule; with frameworkIds, statuses are recomputed over those
// frameworks. Framework progress must agree with the list filtered by each framework.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { controlFixtures, newTestId, type OrganizationSpec } from '../harness/fixtures-controls.ts';
import { CONTROL_SCOPES, EVIDENCE_STATUSES, FUNCTION_GROUPINGS, POLICY_STATUSES } from '../../src/shared/vocabulary.ts';

const RUNS = Number(process.env.CONTROLS_PROPERTY_RUNS ?? 100);
const STATUSES = ['compliant', 'non_compliant', 'not_applicable'] as const;
const NAMES = ['Access reviews', 'access reviews', 'Backup testing', 'Zeta control', 'Ärger handling'];
const DOMAINS = ['Identity Management', 'identity management', 'Data Security', 'Ünïcode Domain'];

// ---- The generated organization, by index (IDs are given when it is written) ----

const subset = (n: number) => fc.uniqueArray(fc.nat({ max: Math.max(0, n - 1) }), { maxLength: n }).map((a) => (n === 0 ? [] : a));

const worldArb = fc
  .record({
    frameworks: fc.integer({ min: 1, max: 3 }),
    requirementsPerFramework: fc.integer({ min: 1, max: 2 }),
    entities: fc.integer({ min: 0, max: 3 }),
    people: fc.integer({ min: 0, max: 3 }),
    controls: fc.integer({ min: 0, max: 7 }),
    policies: fc.integer({ min: 0, max: 4 }),
    evidence: fc.integer({ min: 0, max: 4 }),
    tests: fc.integer({ min: 0, max: 4 }),
  })
  .chain((size) => {
    const requirements = size.frameworks * size.requirementsPerFramework;
    const artifactArb = (status: fc.Arbitrary<string>) =>
      fc.record({
        status,
        isRelevant: fc.boolean(),
        controls: subset(size.controls),
        requirements: subset(requirements),
        entities: subset(size.entities),
      });
    return fc.record({
      size: fc.constant(size),
      frameworkEntities: fc.array(subset(size.entities), { minLength: size.frameworks, maxLength: size.frameworks }),
      controls: fc.array(
        fc.record({
          name: fc.constantFrom(...NAMES),
          domain: fc.constantFrom(...DOMAINS),
          functionGrouping: fc.constantFrom(...FUNCTION_GROUPINGS),
          scope: fc.constantFrom(...CONTROL_SCOPES),
          requirements: subset(requirements),
          assignees: subset(size.people),
          entities: subset(size.entities),
        }),
        { minLength: size.controls, maxLength: size.controls },
      ),
      policies: fc.array(artifactArb(fc.constantFrom(...POLICY_STATUSES)), { minLength: size.policies, maxLength: size.policies }),
      evidence: fc.array(artifactArb(fc.constantFrom(...EVIDENCE_STATUSES)), { minLength: size.evidence, maxLength: size.evidence }),
      tests: fc.array(
        fc.record({
          result: fc.constantFrom('ignored' as const, 'fix_required' as const, 'passing' as const),
          integrationFailing: fc.boolean(),
          kind: fc.constantFrom('automated' as const, 'cloud' as const),
          controls: subset(size.controls),
          requirements: subset(requirements),
          entities: subset(size.entities),
        }),
        { minLength: size.tests, maxLength: size.tests },
      ),
    });
  });
type WorldShape = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

/** A filter by index; `unknown` adds an ID that exists nowhere. Emails and domains get a case change. */
const filterArb = fc.record(
  {
    status: fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1 }),
    frameworks: fc.record({ pick: fc.uniqueArray(fc.nat({ max: 2 }), { minLength: 1 }), unknown: fc.boolean() }),
    entities: fc.record({ pick: fc.uniqueArray(fc.nat({ max: 2 })), unknown: fc.boolean() }),
    assignees: fc.record({ pick: fc.uniqueArray(fc.nat({ max: 2 })), unknown: fc.boolean(), upper: fc.boolean() }),
    domains: fc.record({ pick: fc.uniqueArray(fc.constantFrom(...DOMAINS), { minLength: 1 }), upper: fc.boolean() }),
    functionGroupings: fc.uniqueArray(fc.constantFrom(...FUNCTION_GROUPINGS), { minLength: 1 }),
    controlScope: fc.uniqueArray(fc.constantFrom(...CONTROL_SCOPES), { minLength: 1 }),
  },
  { requiredKeys: [] },
);
type FilterShape = typeof filterArb extends fc.Arbitrary<infer T> ? T : never;

// ---- Writing it ----

interface Written {
  spec: OrganizationSpec;
  frameworkIds: string[];
  requirementFramework: Map<string, string>;
}

function toSpec(world: WorldShape): Written {
  const { size } = world;
  const people = Array.from({ length: size.people }, (_, i) => ({ id: randomUUID(), name: `Person ${i}`, email: `p${i}+grc@Example.com` }));
  const entities = Array.from({ length: size.entities }, (_, i) => ({ id: randomUUID(), name: `Entity ${String.fromCharCode(67 - i)}` }));
  const frameworks = world.frameworkEntities.map((e, i) => ({
    id: randomUUID(),
    name: `Framework ${i}`,
    entityIds: e.map((j) => entities[j].id),
  }));
  const requirements = frameworks.flatMap((f, i) =>
    Array.from({ length: size.requirementsPerFramework }, (_, j) => ({ id: randomUUID(), frameworkId: f.id, code: `F${i}-${j}` })),
  );
  const controls = world.controls.map((c, i) => ({
    id: randomUUID(),
    code: `CTL-${i}`,
    name: c.name,
    domain: c.domain,
    functionGrouping: c.functionGrouping,
    scope: c.scope,
    requirementIds: c.requirements.map((j) => requirements[j].id),
    assignees: c.assignees.map((j) => people[j].id),
    entityIds: c.entities.map((j) => entities[j].id),
  }));
  const mappings: OrganizationSpec['mappings'] = [];
  const mapped = (type: 'policy' | 'evidence' | 'test', id: string, a: { controls: number[]; requirements: number[] }) =>
    mappings.push({
      type,
      id,
      controlIds: a.controls.map((j) => controls[j].id),
      requirementIds: a.requirements.map((j) => requirements[j].id),
    });
  const policies = world.policies.map((p, i) => {
    const id = randomUUID();
    mapped('policy', id, p);
    return { id, name: `Policy ${i}`, status: p.status, isRelevant: p.isRelevant, entityIds: p.entities.map((j) => entities[j].id) };
  });
  const evidence = world.evidence.map((e, i) => {
    const id = randomUUID();
    mapped('evidence', id, e);
    return { id, name: `Evidence ${i}`, status: e.status, isRelevant: e.isRelevant, entityIds: e.entities.map((j) => entities[j].id) };
  });
  const tests = world.tests.map((t, i) => {
    const id = newTestId();
    mapped('test', id, t);
    return {
      id,
      name: `Test ${i}`,
      result: t.result,
      integrationFailing: t.integrationFailing,
      kind: t.kind,
      entityIds: t.entities.map((j) => entities[j].id),
    };
  });
  return {
    spec: { people, entities, frameworks, requirements, controls, policies, evidence, tests, mappings },
    frameworkIds: frameworks.map((f) => f.id),
    requirementFramework: new Map(requirements.map((r) => [r.id, r.frameworkId])),
  };
}

// ---- The oracle: docs/decisions/resources.md "The compliance rule" and the spec's filters ----

interface Query {
  status?: string[];
  frameworkIds?: string[];
  entityIds?: string[];
  assigneeEmails?: string[];
  domains?: string[];
  functionGroupings?: string[];
  controlScope?: string[];
}

function toQuery(f: FilterShape, w: Written): Query {
  const q: Query = {};
  const { spec } = w;
  if (f.status) q.status = f.status;
  if (f.frameworks) {
    q.frameworkIds = f.frameworks.pick.filter((i) => i < w.frameworkIds.length).map((i) => w.frameworkIds[i]);
    if (f.frameworks.unknown || q.frameworkIds.length === 0) q.frameworkIds.push(randomUUID());
  }
  if (f.entities) {
    q.entityIds = f.entities.pick.filter((i) => i < spec.entities.length).map((i) => spec.entities[i].id);
    if (f.entities.unknown || q.entityIds.length === 0) q.entityIds.push(randomUUID());
  }
  if (f.assignees) {
    const emails = f.assignees.pick.filter((i) => i < spec.people.length).map((i) => spec.people[i].email);
    if (f.assignees.unknown || emails.length === 0) emails.push('nobody@example.com');
    q.assigneeEmails = emails.map((e) => (f.assignees!.upper ? e.toUpperCase() : e.toLowerCase()));
  }
  if (f.domains) q.domains = f.domains.pick.map((d) => (f.domains!.upper ? d.toUpperCase() : d));
  if (f.functionGroupings) q.functionGroupings = f.functionGroupings;
  if (f.controlScope) q.controlScope = f.controlScope;
  return q;
}

const url = (q: Query) =>
  '/v1/controls' +
  (Object.keys(q).length === 0
    ? ''
    : '?' +
      Object.entries(q)
        .map(([k, v]) => `${k}=${(v as string[]).map(encodeURIComponent).join(',')}`)
        .join('&'));

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function oracle(w: Written, q: Query) {
  const { spec } = w;
  const person = new Map(spec.people.map((p) => [p.id, p]));
  const entity = new Map(spec.entities.map((e) => [e.id, e]));
  const artifacts = [
    ...spec.policies.map((p) => ({ type: 'policy', id: p.id, relevant: p.isRelevant !== false, complete: p.status === 'published' })),
    ...spec.evidence.map((e) => ({ type: 'evidence', id: e.id, relevant: e.isRelevant !== false, complete: e.status === 'uploaded' })),
    ...spec.tests.map((t) => {
      const status = t.result === 'passing' && t.integrationFailing ? 'affected' : t.result;
      return { type: 'test', id: t.id, relevant: status !== 'ignored', complete: status === 'passing' };
    }),
  ];
  const mappingOf = new Map(spec.mappings.map((m) => [`${m.type}/${m.id}`, m]));
  const frameworksOf = (requirementIds: string[]) => new Set(requirementIds.map((r) => w.requirementFramework.get(r)!));
  const wanted = q.frameworkIds && new Set(q.frameworkIds);
  const lower = (list?: string[]) => list && new Set(list.map((s) => s.toLowerCase()));
  const emails = lower(q.assigneeEmails);
  const domains = lower(q.domains);
  const out = [];
  for (const c of spec.controls) {
    const controlFrameworks = frameworksOf(c.requirementIds ?? []);
    if (wanted && ![...controlFrameworks].some((f) => wanted.has(f))) continue;
    if (q.entityIds && !(c.entityIds ?? []).some((e) => q.entityIds!.includes(e))) continue;
    if (emails && !(c.assignees ?? []).some((p) => emails.has(person.get(p)!.email.toLowerCase()))) continue;
    if (domains && !domains.has(c.domain!.toLowerCase())) continue;
    if (q.functionGroupings && !q.functionGroupings.includes(c.functionGrouping!)) continue;
    if (q.controlScope && !q.controlScope.includes(c.scope!)) continue;
    let relevant = 0;
    let complete = 0;
    for (const a of artifacts) {
      const m = mappingOf.get(`${a.type}/${a.id}`)!;
      if (!m.controlIds.includes(c.id) || !a.relevant) continue;
      if (wanted && ![...frameworksOf(m.requirementIds)].some((f) => wanted.has(f))) continue;
      relevant++;
      if (a.complete) complete++;
    }
    const na = c.scope === 'out_of_scope' || relevant === 0;
    const status = na ? 'not_applicable' : complete === relevant ? 'compliant' : 'non_compliant';
    if (q.status && !q.status.includes(status)) continue;
    out.push({
      controlId: c.id,
      controlCode: c.code,
      controlName: c.name,
      controlDomain: c.domain,
      functionGrouping: c.functionGrouping,
      controlScope: c.scope,
      status,
      controlCompliancePercentage: na ? 'not_applicable' : Math.floor((100 * complete) / relevant),
      assignees: (c.assignees ?? []).map((p, i) => ({ name: person.get(p)!.name, email: person.get(p)!.email, isPrimary: i === 0 })),
      entities: (c.entityIds ?? [])
        .map((e) => ({ entityId: e, entityName: entity.get(e)!.name }))
        .sort((a, b) => cmp(a.entityName, b.entityName) || cmp(a.entityId, b.entityId)),
    });
  }
  return out.sort((a, b) => cmp(a.controlName, b.controlName) || cmp(a.controlId, b.controlId));
}

/** The documented rule of a filter that does not change statuses, applied to a list item. */
function matches(item: ReturnType<typeof oracle>[number], w: Written, q: Query): boolean {
  const control = w.spec.controls.find((c) => c.id === item.controlId)!;
  if (q.status && !q.status.includes(item.status)) return false;
  if (q.entityIds && !item.entities.some((e) => q.entityIds!.includes(e.entityId))) return false;
  if (q.assigneeEmails && !item.assignees.some((a) => q.assigneeEmails!.some((e) => e.toLowerCase() === a.email.toLowerCase())))
    return false;
  if (q.domains && !q.domains.some((d) => d.toLowerCase() === item.controlDomain!.toLowerCase())) return false;
  if (q.functionGroupings && !q.functionGroupings.includes(item.functionGrouping!)) return false;
  if (q.controlScope && !q.controlScope.includes(control.scope!)) return false;
  return true;
}

for (const dialect of dialects) {
  describe(`GET /v1/controls, property (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '1000000', TOKEN_RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test('every filtered list is what the documented rules give; statuses and percentages follow PRODUCT.md', async () => {
      await fc.assert(
        fc.asyncProperty(worldArb, fc.array(filterArb, { minLength: 3, maxLength: 3 }), async (world, filters) => {
          const written = toSpec(world);
          const client = await createOrgWithCredential(server.system, { name: 'Property org' });
          await controlFixtures(server.database.db, client.organizationId).organization(written.spec);
          const token = await getToken(server.url, client);
          const get = async (path: string) => {
            const res = await api(server.url, path, token);
            assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
            return res.body.data;
          };

          const all = await get('/v1/controls');
          assert.deepEqual(all, oracle(written, {}), 'unfiltered list');
          for (const filter of filters) {
            const q = toQuery(filter, written);
            const data = await get(url(q));
            assert.deepEqual(data, oracle(written, q), url(q));
            if (!q.frameworkIds)
              assert.deepEqual(
                data,
                all.filter((item: any) => matches(item, written, q)),
                `${url(q)} vs the unfiltered list`,
              );
          }

          const frameworks = await get('/v1/frameworks');
          for (const f of frameworks) {
            const inScope = (await get(`/v1/controls?frameworkIds=${f.frameworkId}`)).filter((c: any) => c.controlScope === 'in_scope');
            assert.deepEqual(
              [f.complianceProgress.controls.compliant, f.complianceProgress.controls.total],
              [inScope.filter((c: any) => c.status === 'compliant').length, inScope.length],
              `progress of ${f.frameworkName}`,
            );
          }
        }),
        { numRuns: RUNS },
      );
    });
  });
}
