// GET /v1/policies and GET /v1/policies/{policyId} over the shared, exactly known world
// (test/harness/fixtures-artifacts.ts), on every database engine: every filter, every `fields`
// value, every expansion, with exact shapes.
import { INITIAL_DATA_VERSIONS } from '../../src/shared/data-versions.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import {
  artifactFixtures,
  assertValidationFailed,
  commonDefaults,
  commonOptionalValues,
  filterCases,
  invalidListCases,
  itemsWith,
  mappingsOfA,
  NO_MAPPINGS,
  seedArtifactWorld,
  STAMPS,
  T0,
  T1,
  T2,
  TICKETS_OF_A,
  WORLD_NAMES,
  type Letter,
  type World,
} from '../harness/fixtures-artifacts.ts';
import { POLICY_OPTIONAL_FIELDS, listPolicies, type PolicyOptionalField } from '../../src/domain/policies/list.ts';
import { getPolicy } from '../../src/domain/policies/get.ts';
import { ServiceError } from '../../src/shared/errors.ts';

const env = { RATE_LIMIT_MAX: '100000' };
const { ada, bob, cy } = STAMPS;

/** The default list items: the shared fields plus the policy's own. */
function defaults(w: World): Record<Letter, Record<string, unknown>> {
  const common = commonDefaults(w);
  const own = (l: Letter, policyCustomId: string, status: string, aiDetectedGaps: string[]) => ({
    policyId: w.ids[l],
    policyCustomId,
    policyName: WORLD_NAMES[l],
    status,
    ...common[l],
    aiDetectedGaps,
  });
  return {
    A: own('A', 'POL-001', 'published', ['No owner named', 'Review overdue']),
    B: own('B', 'POL-002', 'draft', []),
    C: own('C', 'POL-003', 'needs_review', []),
    D: own('D', 'POL-004', 'pending_approval', []),
  };
}

/** Each optional field's value per policy; a letter without an entry has the key left out. */
function optionalValues(w: World): Record<PolicyOptionalField, Partial<Record<Letter, unknown>>> {
  return {
    ...commonOptionalValues(w),
    policyBehavior: { A: 'requires_acknowledgement' },
    versionNumber: { A: '2.0' },
    publishedBy: { A: ada },
    publishedOn: { A: T1, B: null, C: null, D: null },
  } as Record<PolicyOptionalField, Partial<Record<Letter, unknown>>>;
}

const withFields = (w: World, fields: readonly PolicyOptionalField[]) => itemsWith(defaults(w), optionalValues(w), fields);
const assertInvalid = assertValidationFailed;

for (const dialect of dialects) {
  describe(`GET /v1/policies (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let w: World;
    let otherPolicyId: string;
    let otherToken: string;
    const get = (path: string, t = token) => api(server.url, path, t);

    before(async () => {
      server = await startServer({ dialect, env });
      const client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      w = await seedArtifactWorld(server.database.db, client.organizationId, 'policy');
      const a = artifactFixtures(server.database.db, client.organizationId);
      // documents: a file the service hosts (no URL) and an external link
      await a.document(w.ids.A, { displayName: 'access-control.docx', type: 'word', addedBy: w.people.ada, addedOn: T1 });
      await a.document(w.ids.A, {
        displayName: 'Access control (wiki)',
        type: 'link',
        url: 'https://wiki.example.com/access',
        note: 'Approved copy',
        addedBy: w.people.bob,
        addedOn: T2,
        updatedBy: w.people.cy,
        updatedOn: T2 + 1000,
      });
      await a.version(w.ids.A, '1.0', T0, w.people.bob);
      await a.version(w.ids.A, '2.0', T1, w.people.ada);
      await a.version(w.ids.A, '0.9', T0 - 1000);
      // another organization with a policy of the same shape
      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      otherToken = await getToken(server.url, other);
      const ow = await seedArtifactWorld(server.database.db, other.organizationId, 'policy');
      otherPolicyId = ow.ids.A;
    });
    after(() => server.close());

    test('default list: every policy, ordered by name then ID, with exactly the default fields', async () => {
      const res = await get('/v1/policies');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, withFields(w, []));
      assert.match(res.body.meta.requestId, /^req_/);
      assert.equal(res.headers.get('x-request-id'), res.body.meta.requestId);
    });

    for (const field of POLICY_OPTIONAL_FIELDS) {
      test(`fields=${field} adds exactly that field (left out where it has no value)`, async () => {
        const res = await get(`/v1/policies?fields=${field}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.data, withFields(w, [field]));
      });
    }

    test('every optional field at once; publishedOn and modifiedOn are null, never missing, when asked for', async () => {
      const res = await get(`/v1/policies?fields=${POLICY_OPTIONAL_FIELDS.join(',%20')}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, withFields(w, POLICY_OPTIONAL_FIELDS));
      const b = res.body.data[1];
      assert.equal(b.publishedOn, null);
      assert.equal(b.modifiedOn, null);
      for (const absent of ['department', 'addedBy', 'lastModifiedBy', 'publishedBy', 'versionNumber', 'policyBehavior', 'source']) {
        assert.equal(absent in b, false, `${absent} is left out`);
      }
    });

    test('every filter selects exactly the policies the documented rule selects', async () => {
      for (const [query, expected] of filterCases(w, 'policy')) {
        const res = await get(`/v1/policies?${query}`);
        assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(
          res.body.data.map((p: any) => p.policyName),
          expected.map((l) => WORLD_NAMES[l]),
          query,
        );
      }
    });

    test('filters keep the requested fields and the exact item shape', async () => {
      const res = await get(`/v1/policies?departments=No%20Department&fields=notRelevantReason,modifiedOn`);
      assert.deepEqual(res.body.data, [withFields(w, ['notRelevantReason', 'modifiedOn'])[1]]);
    });

    test('every invalid parameter answers 400 validation_failed naming it', async () => {
      const cases: Array<[string, string]> = [
        ...invalidListCases('policy'),
        ['fields=documents', 'fields'], // a get-one expansion, not a list field
        ['fields=gapCount', 'fields'], // an evidence field
        ['fields=policyName', 'fields'], // a default field is not an optional one
      ];
      for (const [query, field] of cases) assertInvalid(await get(`/v1/policies?${query}`), field, query);
    });

    test('get-one: the list fields plus requirement text, mappings and authorship (published stamps included)', async () => {
      const res = await get(`/v1/policies/${w.ids.A}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        ...defaults(w).A,
        policyRequirementText: 'Show who may access what.',
        ...mappingsOfA(w),
        addedBy: ada,
        addedOn: T0,
        lastModifiedBy: bob,
        modifiedOn: T2,
        publishedBy: ada,
        publishedOn: T1,
      });
    });

    test('get-one of a bare policy: empty arrays, null publishedOn/modifiedOn, other empty fields left out', async () => {
      const res = await get(`/v1/policies/${w.ids.B}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        ...defaults(w).B,
        ...NO_MAPPINGS,
        addedOn: T0,
        modifiedOn: null,
        publishedOn: null,
      });
    });

    test('expansion documents: newest first; a hosted file carries no url, an external link does', async () => {
      const res = await get(`/v1/policies/${w.ids.A}?fields=documents`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.documents, [
        {
          displayName: 'Access control (wiki)',
          type: 'link',
          url: 'https://wiki.example.com/access',
          note: 'Approved copy',
          addedBy: bob,
          addedOn: T2,
          updatedBy: cy,
          updatedOn: T2 + 1000,
        },
        { displayName: 'access-control.docx', type: 'word', addedBy: ada, addedOn: T1 },
      ]);
      assert.equal('versionHistory' in res.body.data, false);
      assert.equal('tickets' in res.body.data, false);
    });

    test('expansion versionHistory: newest first; publishedBy left out when unknown', async () => {
      const res = await get(`/v1/policies/${w.ids.A}?fields=versionHistory`);
      assert.deepEqual(res.body.data.versionHistory, [
        { versionName: '2.0', publishedBy: ada, publishedOn: T1 },
        { versionName: '1.0', publishedBy: bob, publishedOn: T0 },
        { versionName: '0.9', publishedOn: T0 - 1000 },
      ]);
      assert.equal('documents' in res.body.data, false);
    });

    test('expansion tickets: ticketId, source, url, ordered by ticket ID', async () => {
      const res = await get(`/v1/policies/${w.ids.A}?fields=tickets`);
      assert.deepEqual(res.body.data.tickets, TICKETS_OF_A);
    });

    test('expansion aiDetectedGaps: accepted; the field is part of every answer anyway', async () => {
      const plain = await get(`/v1/policies/${w.ids.A}`);
      const expanded = await get(`/v1/policies/${w.ids.A}?fields=aiDetectedGaps`);
      assert.equal(expanded.status, 200);
      assert.deepEqual(expanded.body.data, plain.body.data);
      assert.deepEqual(expanded.body.data.aiDetectedGaps, ['No owner named', 'Review overdue']);
    });

    test('all expansions at once; on a policy without any they are empty arrays', async () => {
      const all = 'aiDetectedGaps,documents,versionHistory,tickets';
      const a = await get(`/v1/policies/${w.ids.A}?fields=${all}`);
      const [docs, versions, tickets] = await Promise.all(
        ['documents', 'versionHistory', 'tickets'].map((f) => get(`/v1/policies/${w.ids.A}?fields=${f}`)),
      );
      assert.deepEqual(a.body.data, {
        ...docs.body.data,
        versionHistory: versions.body.data.versionHistory,
        tickets: tickets.body.data.tickets,
      });
      const b = await get(`/v1/policies/${w.ids.B}?fields=${all}`);
      assert.deepEqual(
        [b.body.data.aiDetectedGaps, b.body.data.documents, b.body.data.versionHistory, b.body.data.tickets],
        [[], [], [], []],
      );
    });

    test('get-one: invalid fields or unknown parameters answer 400 naming them', async () => {
      const cases: Array<[string, string]> = [
        ['fields=policyBehavior', 'fields'],
        ['fields=documents,bogus', 'fields'],
        ['fields=attachments', 'fields'],
        ['fields=', 'fields'],
        ['expand=documents', 'expand'],
        ['status=published', 'status'],
      ];
      for (const [query, field] of cases) assertInvalid(await get(`/v1/policies/${w.ids.A}?${query}`), field, query);
    });

    test("404 not_found for an unknown ID, another organization's ID and another resource's ID", async () => {
      const evidenceLikeId = w.frameworks.F1;
      for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', otherPolicyId, evidenceLikeId]) {
        const res = await get(`/v1/policies/${encodeURIComponent(id)}`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body.error, { code: 'not_found', message: 'Policy was not found.', details: [] });
      }
      // and the other organization reads its own policy but never this one
      assert.equal((await get(`/v1/policies/${otherPolicyId}`, otherToken)).status, 200);
      assert.equal((await get(`/v1/policies/${w.ids.A}`, otherToken)).status, 404);
    });

    test("another organization's filters never reach this organization's policies", async () => {
      const res = await get(`/v1/policies?frameworkIds=${w.frameworks.F1}&entityIds=${w.entities.E1}`, otherToken);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, []);
      const all = await get('/v1/policies', otherToken);
      assert.equal(all.body.data.length, 4);
      assert.ok(all.body.data.every((p: any) => !Object.values(w.ids).includes(p.policyId)));
    });

    test('no answer carries a URL of a hosted file', async () => {
      const res = await get(`/v1/policies/${w.ids.A}?fields=documents`);
      const urls = res.body.data.documents.filter((d: any) => 'url' in d).map((d: any) => [d.type, d.url]);
      assert.deepEqual(urls, [['link', 'https://wiki.example.com/access']]);
    });

    test('a new policy is listed at once (results are cached per data version)', async () => {
      const first = await get('/v1/policies?isRelevant=false');
      assert.deepEqual(
        first.body.data.map((p: any) => p.policyId),
        [w.ids.B],
      );
      const other = await createOrgWithCredential(server.system, { name: 'Scratch' });
      const t = await getToken(server.url, other);
      const a = artifactFixtures(server.database.db, other.organizationId);
      await a.policy({ name: 'Zeta', status: 'draft' });
      assert.equal((await get('/v1/policies', t)).body.data.length, 1);
      await a.policy({ name: 'Eta', status: 'draft', isRelevant: false });
      assert.deepEqual(
        (await get('/v1/policies?isRelevant=0', t)).body.data.map((p: any) => p.policyName),
        ['Eta'],
      );
      assert.deepEqual(
        (await get('/v1/policies', t)).body.data.map((p: any) => p.policyName),
        ['Eta', 'Zeta'],
      );
    });

    test('security: no token → 401; a plan without policies → 403 plan_restricted', async () => {
      for (const path of ['/v1/policies', `/v1/policies/${w.ids.A}`]) {
        assert.equal((await api(server.url, path)).status, 401);
      }
      const restricted = await createOrgWithCredential(server.system, { name: 'No policies', plan: 'framework,evidence' });
      const t = await getToken(server.url, restricted);
      for (const path of ['/v1/policies', `/v1/policies/${w.ids.A}`]) {
        const res = await get(path, t);
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'plan_restricted');
      }
    });

    test('the verbs require policy:read (or policy:write) before anything else', async () => {
      const actor = (scopes: string[]) => ({
        organizationId: 'org',
        credentialId: 'cred',
        scopes: new Set(scopes),
        plan: new Set(['policy']),
        dataVersions: INITIAL_DATA_VERSIONS,
      });
      const ctx = (scopes: string[]) => ({ ...server.system, actor: actor(scopes) });
      const forbidden = (err: unknown) => err instanceof ServiceError && err.code === 'forbidden';
      await assert.rejects(listPolicies({ ctx: ctx(['evidence:read']), input: {} }), forbidden);
      await assert.rejects(getPolicy({ ctx: ctx(['evidence:write']), input: { policyId: w.ids.A } }), forbidden);
      assert.deepEqual(await listPolicies({ ctx: ctx(['policy:write']), input: {} }), []);
    });
  });
}
