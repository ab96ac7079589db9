// Property: for random small organizations and random filter combinations, GET /v1/policies and
// GET /v1/evidence answer exactly the unfiltered list filtered here by the documented rule (an
// oracle written independently of the service's SQL), in the same order. Every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { artifactFixtures, type ArtifactKind, type ArtifactSpec } from '../harness/fixtures-artifacts.ts';
import { EVIDENCE_STATUSES, POLICY_STATUSES } from '../../src/shared/vocabulary.ts';

const env = { RATE_LIMIT_MAX: '1000000', TOKEN_RATE_LIMIT_MAX: '100000' };
const RUNS = Number(process.env.PROPERTY_RUNS ?? 12);
const FILTERS_PER_WORLD = 12;

const STATUSES: Record<ArtifactKind, readonly string[]> = { policy: POLICY_STATUSES, evidence: EVIDENCE_STATUSES };
const PEOPLE = [
  ['Ann', 'ann+ops@example.com'],
  ['Ben', 'Ben.Ng@Example.com'],
  ['Cat', 'cat@example.com'],
  ['Dan', 'DAN@EXAMPLE.COM'],
] as const;
const DEPARTMENTS = ['Engineering', 'engineering', 'Security', 'IT', null] as const;
const DEPARTMENT_QUERIES = ['Engineering', 'ENGINEERING', 'security', 'IT', 'Legal', 'No Department', 'no department'];
const REVIEW_DATES = [null, 1000, 2000, 3000] as const;
const BOUNDS = [0, 999, 1000, 1500, 2000, 3000, 3001];
// names repeat so that ties are ordered by ID
const NAMES = ['Alpha', 'Beta', 'Gamma', 'alpha', 'Beta'];
const N_ENTITIES = 3;
const N_REQUIREMENTS = 4; // two per framework
const N_CONTROLS = 3;

/** Indices into the organization's reference data; turned into IDs once it exists. */
interface ArtifactPlan {
  name: string;
  status: string;
  department: string | null;
  isRelevant: boolean;
  nextReviewDate: number | null;
  assignees: number[];
  approvers: number[];
  entities: number[];
  requirements: number[];
  controls: number[];
}

const subset = (n: number) => fc.uniqueArray(fc.nat({ max: n - 1 }), { maxLength: n });
const artifactPlan = (kind: ArtifactKind): fc.Arbitrary<ArtifactPlan> =>
  fc.record({
    name: fc.constantFrom(...NAMES),
    status: fc.constantFrom(...STATUSES[kind]),
    department: fc.constantFrom(...DEPARTMENTS),
    isRelevant: fc.boolean(),
    nextReviewDate: fc.constantFrom(...REVIEW_DATES),
    assignees: subset(PEOPLE.length),
    approvers: subset(PEOPLE.length),
    entities: subset(N_ENTITIES),
    requirements: subset(N_REQUIREMENTS),
    controls: subset(N_CONTROLS),
  });

/** A filter in indices; `extra` adds an ID that exists nowhere. */
interface FilterPlan {
  status?: string[];
  frameworks?: number[];
  controls?: number[];
  entities?: number[];
  isRelevant?: 'true' | 'false' | '1' | '0';
  assignees?: Array<[number, 'lower' | 'upper' | 'same']>;
  approvers?: Array<[number, 'lower' | 'upper' | 'same']>;
  departments?: string[];
  from?: number;
  to?: number;
}

/** Each filter is present one time in three, so combinations select something often enough. */
const some = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: arb, weight: 1 });
const nonEmpty = <T>(values: readonly T[]) => fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: values.length });
const emails = fc.uniqueArray(
  fc.tuple(fc.nat({ max: PEOPLE.length }), fc.constantFrom('lower', 'upper', 'same') as fc.Arbitrary<'lower' | 'upper' | 'same'>),
  {
    minLength: 1,
    maxLength: 3,
    selector: ([i]) => i,
  },
);
const filterPlan = (kind: ArtifactKind): fc.Arbitrary<FilterPlan> =>
  fc.record({
    status: some(nonEmpty(STATUSES[kind])),
    frameworks: some(nonEmpty([0, 1, 2])), // 2 = an unknown ID
    controls: some(nonEmpty([0, 1, 2, 3])), // 3 = an unknown ID
    entities: some(nonEmpty([0, 1, 2, 3])), // 3 = an unknown ID
    isRelevant: some(fc.constantFrom('true', 'false', '1', '0') as fc.Arbitrary<'true' | 'false' | '1' | '0'>),
    assignees: some(emails), // index PEOPLE.length = an unknown address
    approvers: some(emails),
    departments: some(nonEmpty(DEPARTMENT_QUERIES)),
    from: some(fc.constantFrom(...BOUNDS)),
    to: some(fc.constantFrom(...BOUNDS)),
  });

interface Org {
  token: string;
  people: string[];
  emails: string[];
  entities: string[];
  frameworks: string[];
  requirements: string[];
  controls: string[];
}

const UNKNOWN = '00000000-0000-0000-0000-000000000000';

async function makeOrg(server: TestServer, kind: ArtifactKind, plans: ArtifactPlan[]): Promise<Org> {
  const client = await createOrgWithCredential(server.system, { name: `Property ${kind}` });
  const db = server.database.db;
  const f = fixtures(db, client.organizationId);
  const people: string[] = [];
  for (const [name, email] of PEOPLE) people.push(await f.person(name, email));
  const entities: string[] = [];
  for (let i = 0; i < N_ENTITIES; i++) entities.push(await f.entity(`Entity ${i}`));
  const frameworks = [await f.framework('F0'), await f.framework('F1')];
  const requirements: string[] = [];
  for (let i = 0; i < N_REQUIREMENTS; i++) requirements.push(await f.requirement(frameworks[i % 2], `R${i}`));
  const controls: string[] = [];
  for (let i = 0; i < N_CONTROLS; i++) controls.push(await f.control(`C${i}`, { requirementIds: [requirements[i]] }));
  const a = artifactFixtures(db, client.organizationId);
  for (const p of plans) {
    const spec: ArtifactSpec = {
      name: p.name,
      status: p.status,
      department: p.department,
      isRelevant: p.isRelevant,
      nextReviewDate: p.nextReviewDate,
      assignees: p.assignees.map((i) => people[i]),
      approvers: p.approvers.map((i) => people[i]),
      entityIds: p.entities.map((i) => entities[i]),
      requirementIds: p.requirements.map((i) => requirements[i]),
      controlIds: p.controls.map((i) => controls[i]),
    };
    await (kind === 'policy' ? a.policy(spec) : a.evidence(spec));
  }
  return {
    token: await getToken(server.url, client),
    people,
    emails: PEOPLE.map(([, e]) => e),
    entities,
    frameworks,
    requirements,
    controls,
  };
}

const cased = (email: string, how: 'lower' | 'upper' | 'same') =>
  how === 'lower' ? email.toLowerCase() : how === 'upper' ? email.toUpperCase() : email;

/** The filter's values as the API takes them, and the values the oracle compares. */
function resolve(plan: FilterPlan, org: Org) {
  const id = (list: string[], i: number) => list[i] ?? UNKNOWN;
  const email = ([i, how]: [number, 'lower' | 'upper' | 'same']) => cased(org.emails[i] ?? 'nobody+x@example.com', how);
  return {
    status: plan.status,
    frameworkIds: plan.frameworks?.map((i) => id(org.frameworks, i)),
    controlIds: plan.controls?.map((i) => id(org.controls, i)),
    entityIds: plan.entities?.map((i) => id(org.entities, i)),
    isRelevant: plan.isRelevant,
    assigneeEmails: plan.assignees?.map(email),
    approverEmails: plan.approvers?.map(email),
    departments: plan.departments,
    nextReviewAtFrom: plan.from,
    nextReviewAtTo: plan.to,
  };
}

type Resolved = ReturnType<typeof resolve>;

function queryString(r: Resolved): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(r)) {
    if (value === undefined) continue;
    // lists with a space after some commas, as clients may send them; `+` goes out as %2B
    const text = Array.isArray(value) ? value.map(encodeURIComponent).join(',%20') : encodeURIComponent(String(value));
    parts.push(`${key}=${text}`);
  }
  return parts.join('&');
}

/** The documented rule, applied to an item of the unfiltered list. */
function matches(item: any, r: Resolved): boolean {
  const any = (have: string[], wanted: string[] | undefined) => wanted === undefined || have.some((h) => wanted.includes(h));
  const lower = (xs: string[] | undefined) => xs?.map((x) => x.toLowerCase());
  if (r.status && !r.status.includes(item.status)) return false;
  if (!any(item.mappedFrameworkIds, r.frameworkIds)) return false;
  if (!any(item.mappedControlIds, r.controlIds)) return false;
  if (
    !any(
      item.entities.map((e: any) => e.entityId),
      r.entityIds,
    )
  )
    return false;
  if (r.isRelevant !== undefined && item.isRelevant !== (r.isRelevant === 'true' || r.isRelevant === '1')) return false;
  if (
    !any(
      item.assignees.map((p: any) => p.email.toLowerCase()),
      lower(r.assigneeEmails),
    )
  )
    return false;
  if (
    !any(
      item.approvers.map((p: any) => p.email.toLowerCase()),
      lower(r.approverEmails),
    )
  )
    return false;
  if (r.departments) {
    const wanted = lower(r.departments)!;
    const ok = item.department === undefined ? wanted.includes('no department') : wanted.includes(item.department.toLowerCase());
    if (!ok) return false;
  }
  if (r.nextReviewAtFrom !== undefined && (item.nextReviewDate === null || item.nextReviewDate < r.nextReviewAtFrom)) return false;
  if (r.nextReviewAtTo !== undefined && (item.nextReviewDate === null || item.nextReviewDate > r.nextReviewAtTo)) return false;
  return true;
}

const PATHS: Record<ArtifactKind, string> = { policy: '/v1/policies', evidence: '/v1/evidence' };

for (const dialect of dialects) {
  describe(`policy and evidence list filters: property (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, env });
    });
    after(() => server.close());

    for (const kind of ['policy', 'evidence'] as const) {
      test(`${PATHS[kind]}: every filtered list equals the unfiltered list filtered by the documented rule`, async () => {
        const path = PATHS[kind];
        // how many filtered answers were neither empty nor everything: the property must not hold vacuously
        let selective = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(artifactPlan(kind), { minLength: 2, maxLength: 8 }),
            fc.array(filterPlan(kind), { minLength: FILTERS_PER_WORLD, maxLength: FILTERS_PER_WORLD }),
            async (plans, filters) => {
              const org = await makeOrg(server, kind, plans);
              const fields = 'fields=mappedFrameworkIds,mappedControlIds';
              const all = await api(server.url, `${path}?${fields}`, org.token);
              assert.equal(all.status, 200);
              assert.equal(all.body.data.length, plans.length);
              for (const plan of filters) {
                const r = resolve(plan, org);
                const q = queryString(r);
                const res = await api(server.url, `${path}?${q}${q ? '&' : ''}${fields}`, org.token);
                assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
                const expected = all.body.data.filter((item: any) => matches(item, r));
                assert.deepEqual(res.body.data, expected, q);
                if (expected.length > 0 && expected.length < all.body.data.length) selective++;
              }
            },
          ),
          { numRuns: RUNS },
        );
        assert.ok(selective >= RUNS, `only ${selective} filtered answers were selective`);
      });
    }
  });
}
