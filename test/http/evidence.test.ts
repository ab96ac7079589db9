// GET /v1/evidence and GET /v1/evidence/{evidenceId}, and their plural aliases /v1/evidences…,
// over the shared, exactly known world (test/harness/fixtures-artifacts.ts), on every database
// engine: every filter, every `fields` value, every expansion, with exact shapes.
import { INITIAL_DATA_VERSIONS } from '../../src/shared/data-versions.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
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
  NOW,
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
import { EVIDENCE_OPTIONAL_FIELDS, listEvidence, type EvidenceOptionalField } from '../../src/domain/evidence/list.ts';
import { getEvidence } from '../../src/domain/evidence/get.ts';
import { ServiceError } from '../../src/shared/errors.ts';

const env = { RATE_LIMIT_MAX: '100000' };
const DAY = 86_400_000;
const { ada, bob, cy } = STAMPS;
const JANUARY = { start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 1, 1) - 1 };

/** The default list items: the shared fields plus the record's own. */
function defaults(w: World): Record<Letter, Record<string, unknown>> {
  const common = commonDefaults(w);
  const own = (l: Letter, status: string, gapCount: number) => ({
    evidenceId: w.ids[l],
    evidenceName: WORLD_NAMES[l],
    status,
    ...common[l],
    gapCount,
  });
  return { A: own('A', 'uploaded', 2), B: own('B', 'not_uploaded', 0), C: own('C', 'needs_review', 0), D: own('D', 'pending_approval', 0) };
}

function optionalValues(w: World): Record<EvidenceOptionalField, Partial<Record<Letter, unknown>>> {
  return {
    ...commonOptionalValues(w),
    evidenceCollectionMethod: { A: 'manual' },
    ticketsCount: { A: 2, B: 0, C: 0, D: 0 },
  } as Record<EvidenceOptionalField, Partial<Record<Letter, unknown>>>;
}

const withFields = (w: World, fields: readonly EvidenceOptionalField[]) => itemsWith(defaults(w), optionalValues(w), fields);
const assertInvalid = assertValidationFailed;

for (const dialect of dialects) {
  describe(`GET /v1/evidence (${dialect})`, () => {
    let server: TestServer;
    let client: Client;
    let token: string;
    let w: World;
    let otherEvidenceId: string;
    let otherToken: string;
    let clock = NOW;
    const get = (path: string, t = token) => api(server.url, path, t);

    before(async () => {
      server = await startServer({ dialect, env, now: () => clock });
      client = await createOrgWithCredential(server.system);
      token = await getToken(server.url, client);
      w = await seedArtifactWorld(server.database.db, client.organizationId, 'evidence');
      const a = artifactFixtures(server.database.db, client.organizationId);
      // A hosted file whose row even holds a URL: it must never be shown.
      await a.attachment(w.ids.A, {
        displayName: 'access-review-2026-01.png',
        type: 'image',
        hosted: true,
        url: 'https://blobs.internal/must-not-leak',
        addedBy: w.people.ada,
        addedOn: NOW - DAY,
        evidenceDate: NOW - DAY,
        periodStart: JANUARY.start,
        periodEnd: JANUARY.end,
      });
      await a.attachment(w.ids.A, {
        displayName: 'Access review (drive)',
        type: 'link',
        url: 'https://drive.example.com/access-review',
        note: 'Shared drive copy',
        addedBy: w.people.bob,
        addedOn: T2,
        updatedBy: w.people.cy,
        updatedOn: T2 + 1,
        evidenceDate: T2,
        periodStart: Date.UTC(2025, 9, 1),
        periodEnd: Date.UTC(2025, 10, 1) - 1,
      });
      await a.attachment(w.ids.A, { displayName: 'acknowledgements.csv', type: 'csv', hosted: true, addedOn: T1, evidenceDate: T1 });
      await a.attachment(w.ids.A, {
        displayName: 'boundary.txt',
        type: 'text',
        hosted: true,
        addedOn: NOW,
        evidenceDate: NOW,
        periodStart: NOW,
        periodEnd: NOW,
      });
      // B is not_uploaded: even a stray attachment row is not listed
      await a.attachment(w.ids.B, { displayName: 'stray.txt', type: 'text', hosted: true, evidenceDate: T1 });
      const other = await createOrgWithCredential(server.system, { name: 'Other Org' });
      otherToken = await getToken(server.url, other);
      otherEvidenceId = (await seedArtifactWorld(server.database.db, other.organizationId, 'evidence')).ids.A;
    });
    after(() => server.close());

    test('default list: every record, ordered by name then ID, with exactly the default fields', async () => {
      const res = await get('/v1/evidence');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, withFields(w, []));
    });

    for (const field of EVIDENCE_OPTIONAL_FIELDS) {
      test(`fields=${field} adds exactly that field (left out where it has no value)`, async () => {
        const res = await get(`/v1/evidence?fields=${field}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.data, withFields(w, [field]));
      });
    }

    test('every optional field at once', async () => {
      const res = await get(`/v1/evidence?fields=${EVIDENCE_OPTIONAL_FIELDS.join(',')}`);
      assert.deepEqual(res.body.data, withFields(w, EVIDENCE_OPTIONAL_FIELDS));
    });

    test('every filter selects exactly the records the documented rule selects', async () => {
      for (const [query, expected] of filterCases(w, 'evidence')) {
        const res = await get(`/v1/evidence?${query}`);
        assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(
          res.body.data.map((e: any) => e.evidenceName),
          expected.map((l) => WORLD_NAMES[l]),
          query,
        );
      }
    });

    test('every invalid parameter answers 400 validation_failed naming it', async () => {
      const cases: Array<[string, string]> = [
        ...invalidListCases('evidence'),
        ['fields=attachments', 'fields'],
        ['fields=versionNumber', 'fields'], // a policy field
        ['fields=evidenceName', 'fields'],
      ];
      for (const [query, field] of cases) assertInvalid(await get(`/v1/evidence?${query}`), field, query);
    });

    test('get-one: list fields, mappings, requirement text, cadence, authorship and the revision request', async () => {
      const res = await get(`/v1/evidence/${w.ids.A}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        ...defaults(w).A,
        ...mappingsOfA(w),
        evidenceRequirementText: 'Show who may access what.',
        effortEstimate: 'medium',
        recurrence: 'yearly',
        source: 'template',
        addedBy: ada,
        addedOn: T0,
        lastModifiedBy: bob,
        modifiedOn: T2,
        revisionRequestedBy: cy,
        revisionRequestedOn: T2,
        rejectionReason: 'The screenshot is cropped.',
      });
    });

    test('get-one of a bare record: empty arrays, null modifiedOn, other empty fields left out', async () => {
      const res = await get(`/v1/evidence/${w.ids.B}`);
      assert.deepEqual(res.body.data, {
        ...defaults(w).B,
        ...NO_MAPPINGS,
        notRelevantReason: 'Not used by this organization',
        addedOn: T0,
        modifiedOn: null,
      });
    });

    test('expansion mappedTests: testId, testName and the computed status (passing + failing integration = affected)', async () => {
      const res = await get(`/v1/evidence/${w.ids.A}?fields=mappedTests`);
      const expected = [
        { testId: w.tests.T1, testName: `Test ${w.tests.T1}`, status: 'affected' },
        { testId: w.tests.T2, testName: `Test ${w.tests.T2}`, status: 'fix_required' },
      ].sort((x, y) => (x.testName < y.testName ? -1 : 1));
      assert.deepEqual(res.body.data.mappedTests, expected);
      assert.deepEqual((await get(`/v1/evidence/${w.ids.C}?fields=mappedTests`)).body.data.mappedTests, []);
    });

    test('expansion gaps: the gap texts', async () => {
      assert.deepEqual((await get(`/v1/evidence/${w.ids.A}?fields=gaps`)).body.data.gaps, ['No owner named', 'Review overdue']);
      assert.deepEqual((await get(`/v1/evidence/${w.ids.C}?fields=gaps`)).body.data.gaps, []);
    });

    test('expansion attachments: newest evidence date first, no URL on hosted files, isCurrentPeriod against the clock', async () => {
      const res = await get(`/v1/evidence/${w.ids.A}?fields=attachments`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.attachments, [
        {
          displayName: 'boundary.txt',
          type: 'text',
          addedOn: NOW,
          evidenceDate: NOW,
          isCurrentPeriod: true,
          periodStart: NOW,
          periodEnd: NOW,
        },
        {
          displayName: 'access-review-2026-01.png',
          type: 'image',
          addedBy: ada,
          addedOn: NOW - DAY,
          evidenceDate: NOW - DAY,
          isCurrentPeriod: true,
          periodStart: JANUARY.start,
          periodEnd: JANUARY.end,
        },
        {
          displayName: 'Access review (drive)',
          type: 'link',
          url: 'https://drive.example.com/access-review',
          note: 'Shared drive copy',
          addedBy: bob,
          addedOn: T2,
          updatedBy: cy,
          updatedOn: T2 + 1,
          evidenceDate: T2,
          isCurrentPeriod: false,
          periodStart: Date.UTC(2025, 9, 1),
          periodEnd: Date.UTC(2025, 10, 1) - 1,
        },
        // no period (for example one-time evidence): never current, no period keys
        { displayName: 'acknowledgements.csv', type: 'csv', addedOn: T1, evidenceDate: T1, isCurrentPeriod: false },
      ]);
      assert.ok(!JSON.stringify(res.body).includes('must-not-leak'));
    });

    test('expansion attachments is empty while the status is not_uploaded', async () => {
      const res = await get(`/v1/evidence/${w.ids.B}?fields=attachments`);
      assert.deepEqual(res.body.data.attachments, []);
    });

    test('isCurrentPeriod follows the clock even when the answer comes from the cache', async () => {
      const before = await get(`/v1/evidence/${w.ids.A}?fields=attachments`);
      assert.deepEqual(
        before.body.data.attachments.map((a: any) => a.isCurrentPeriod),
        [true, true, false, false],
      );
      clock = JANUARY.end + 1; // February: the data did not change, the period did
      try {
        const t = await getToken(server.url, client); // the old token expired with the clock jump
        const after = await get(`/v1/evidence/${w.ids.A}?fields=attachments`, t);
        assert.deepEqual(
          after.body.data.attachments.map((a: any) => a.isCurrentPeriod),
          [false, false, false, false],
        );
        clock = JANUARY.end;
        const last = await get(`/v1/evidence/${w.ids.A}?fields=attachments`, await getToken(server.url, client));
        assert.deepEqual(
          last.body.data.attachments.map((a: any) => a.isCurrentPeriod),
          [false, true, false, false],
        );
      } finally {
        clock = NOW;
      }
    });

    test('expansion tickets, and all expansions at once', async () => {
      assert.deepEqual((await get(`/v1/evidence/${w.ids.A}?fields=tickets`)).body.data.tickets, TICKETS_OF_A);
      const parts = await Promise.all(
        ['mappedTests', 'gaps', 'attachments', 'tickets'].map((f) => get(`/v1/evidence/${w.ids.A}?fields=${f}`)),
      );
      const merged = Object.assign({}, ...parts.map((p) => p.body.data));
      const all = await get(`/v1/evidence/${w.ids.A}?fields=mappedTests,%20gaps,attachments,tickets`);
      assert.deepEqual(all.body.data, merged);
      const bare = await get(`/v1/evidence/${w.ids.D}?fields=mappedTests,gaps,attachments,tickets`);
      assert.deepEqual(
        [bare.body.data.mappedTests, bare.body.data.gaps, bare.body.data.attachments, bare.body.data.tickets],
        [[], [], [], []],
      );
    });

    test('get-one: invalid fields or unknown parameters answer 400 naming them', async () => {
      const cases: Array<[string, string]> = [
        ['fields=documents', 'fields'],
        ['fields=gaps,bogus', 'fields'],
        ['fields=ticketsCount', 'fields'],
        ['fields=', 'fields'],
        ['expand=gaps', 'expand'],
      ];
      for (const [query, field] of cases) assertInvalid(await get(`/v1/evidence/${w.ids.A}?${query}`), field, query);
    });

    test("404 not_found for an unknown ID, another organization's ID and a policy-shaped ID", async () => {
      for (const id of ['00000000-0000-0000-0000-000000000000', 'nope', otherEvidenceId, w.controls.C1]) {
        for (const base of ['/v1/evidence', '/v1/evidences']) {
          const res = await get(`${base}/${encodeURIComponent(id)}`);
          assert.equal(res.status, 404, `${base}/${id}`);
          assert.deepEqual(res.body.error, { code: 'not_found', message: 'Evidence was not found.', details: [] });
        }
      }
      assert.equal((await get(`/v1/evidence/${w.ids.A}`, otherToken)).status, 404);
      assert.deepEqual((await get(`/v1/evidence?entityIds=${w.entities.E1}`, otherToken)).body.data, []);
    });

    test('the plural aliases /v1/evidences… answer exactly like the singular paths', async () => {
      const queries = [
        '',
        `?fields=${EVIDENCE_OPTIONAL_FIELDS.join(',')}`,
        ...filterCases(w, 'evidence').map(([q]) => `?${q}`),
        ...invalidListCases('evidence').map(([q]) => `?${q}`),
      ];
      for (const q of queries) {
        const [singular, plural] = await Promise.all([get(`/v1/evidence${q}`), get(`/v1/evidences${q}`)]);
        assert.equal(plural.status, singular.status, q);
        assert.deepEqual(plural.body.data ?? plural.body.error, singular.body.data ?? singular.body.error, q);
      }
      for (const id of Object.values(w.ids)) {
        for (const q of ['', '?fields=mappedTests,gaps,attachments,tickets', '?fields=nope']) {
          const [singular, plural] = await Promise.all([get(`/v1/evidence/${id}${q}`), get(`/v1/evidences/${id}${q}`)]);
          assert.equal(plural.status, singular.status, `${id}${q}`);
          assert.deepEqual(plural.body.data ?? plural.body.error, singular.body.data ?? singular.body.error, `${id}${q}`);
        }
      }
    });

    test('the aliases are documented in /openapi.json with the same parameters and responses', async () => {
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
      for (const [singular, plural] of [
        ['/v1/evidence', '/v1/evidences'],
        ['/v1/evidence/{evidenceId}', '/v1/evidences/{evidenceId}'],
      ]) {
        const s = doc.paths[singular]?.get;
        const p = doc.paths[plural]?.get;
        assert.ok(s && p, `${singular} and ${plural} are documented`);
        assert.deepEqual(p.parameters, s.parameters);
        assert.deepEqual(p.responses, s.responses);
        assert.deepEqual(p.security, [{ bearerAuth: ['evidence:read'] }]);
      }
      assert.ok(doc.paths['/v1/evidence/{evidenceId}'].get.responses['404']);
    });

    test('security: no token → 401; a plan without evidence → 403 plan_restricted; the verbs need evidence:read', async () => {
      for (const path of ['/v1/evidence', '/v1/evidences', `/v1/evidence/${w.ids.A}`, `/v1/evidences/${w.ids.A}`]) {
        assert.equal((await api(server.url, path)).status, 401, path);
      }
      const restricted = await createOrgWithCredential(server.system, { name: 'No evidence', plan: 'policy' });
      const t = await getToken(server.url, restricted);
      for (const path of ['/v1/evidence', `/v1/evidences/${w.ids.A}`]) {
        const res = await get(path, t);
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'plan_restricted');
      }
      const ctx = (scopes: string[]) => ({
        ...server.system,
        actor: {
          organizationId: 'org',
          credentialId: 'cred',
          scopes: new Set(scopes),
          plan: new Set(['evidence']),
          dataVersions: INITIAL_DATA_VERSIONS,
        },
      });
      const forbidden = (err: unknown) => err instanceof ServiceError && err.code === 'forbidden';
      await assert.rejects(listEvidence({ ctx: ctx(['policy:read']), input: {} }), forbidden);
      await assert.rejects(getEvidence({ ctx: ctx(['policy:write']), input: { evidenceId: w.ids.A } }), forbidden);
      assert.deepEqual(await listEvidence({ ctx: ctx(['evidence:write']), input: {} }), []);
    });
  });
}
