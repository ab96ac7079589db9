// A property test of the per-kind data versions (src/shared/data-versions.ts), on every database
// engine: after any sequence of writes over HTTP (findings created and patched, evidence
// uploaded, reviewed and linked, the policy moved along its lifecycle), and of the operator's plan change, every answer of a server with a result cache
// equals the one a server without a cache computes from the same database, for every list and
// get-one endpoint that caches. A write that forgot to bump a kind some answer reads, or an
// answer keyed by fewer kinds than it reads, shows here as a stale answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { controlFixtures, newTestId } from '../harness/fixtures-controls.ts';
import { NoResultCache } from '../../src/domain/result-cache.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { RESOURCES } from '../../src/domain/auth/scopes.ts';

const RUNS = Number(process.env.DATA_VERSIONS_PROPERTY_RUNS ?? 15);

type Write =
  | { kind: 'createFinding'; severity: 'low' | 'high' }
  | { kind: 'patchFinding'; finding: number; reportLink: string }
  | { kind: 'upload'; evidence: number }
  | { kind: 'plan'; without: (typeof RESOURCES)[number] | null }
  | { kind: 'evidenceMove'; evidence: number; move: (typeof EVIDENCE_MOVES)[number] }
  | { kind: 'policyMove'; move: (typeof POLICY_MOVES)[number] };

/** The review and lifecycle moves (issue 26): a move its status does not allow is refused, which changes nothing. */
const EVIDENCE_MOVES = ['approve', 'request_revision', 'links', 'notRelevant', 'relevant'] as const;
const POLICY_MOVES = ['submit', 'approve', 'publish', 'request_review', 'notRelevant', 'relevant'] as const;

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('createFinding' as const), severity: fc.constantFrom('low' as const, 'high' as const) }),
  fc.record({ kind: fc.constant('patchFinding' as const), finding: fc.nat(), reportLink: fc.constantFrom('', 'https://example.com/r') }),
  fc.record({ kind: fc.constant('upload' as const), evidence: fc.nat() }),
  fc.record({ kind: fc.constant('plan' as const), without: fc.constantFrom(null, null, 'vulnerability' as const, 'evidence' as const) }),
  fc.record({ kind: fc.constant('evidenceMove' as const), evidence: fc.nat(), move: fc.constantFrom(...EVIDENCE_MOVES) }),
  fc.record({ kind: fc.constant('policyMove' as const), move: fc.constantFrom(...POLICY_MOVES) }),
);

for (const dialect of dialects) {
  describe(`data versions, property (${dialect})`, () => {
    let base: TestDatabase;
    let server: TestServer;
    let fresh: TestServer;
    let blobDir: string;
    let token: string;
    let organizationId: string;
    let frameworkId: string;
    const evidenceIds: string[] = [];
    const controlIds: string[] = [];
    const findings: string[] = [];
    let policyId: string;
    let testId: string;

    before(async () => {
      base = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-versions-property-'));
      const env = { RATE_LIMIT_MAX: '1000000', TOKEN_RATE_LIMIT_MAX: '1000000', BLOB_DIR: blobDir };
      server = await startServer({ database: { ...base, drop: async () => {} }, env });
      fresh = await startServer({ database: base, env, cache: new NoResultCache() });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
      frameworkId = randomUUID();
      const requirements = [randomUUID(), randomUUID()];
      for (let i = 0; i < 3; i++) controlIds.push(randomUUID());
      for (let i = 0; i < 3; i++) evidenceIds.push(randomUUID());
      policyId = randomUUID();
      testId = newTestId();
      await controlFixtures(base.db, organizationId).organization({
        people: [],
        entities: [],
        frameworks: [{ id: frameworkId, name: 'Framework', entityIds: [] }],
        requirements: requirements.map((id, i) => ({ id, frameworkId, code: `R-${i}` })),
        controls: controlIds.map((id, i) => ({ id, code: `CTL-${i}`, name: `Control ${i}`, requirementIds: [requirements[i % 2]] })),
        policies: [{ id: policyId, name: 'Policy', status: 'published' }],
        evidence: evidenceIds.map((id, i) => ({ id, name: `Evidence ${i}`, status: 'not_uploaded' })),
        tests: [{ id: testId, name: 'Test', result: 'fix_required' }],
        mappings: [
          ...evidenceIds.map((id, i) => ({
            type: 'evidence' as const,
            id,
            controlIds: [controlIds[i]],
            requirementIds: [requirements[i % 2]],
          })),
          { type: 'policy', id: policyId, controlIds, requirementIds: requirements },
          { type: 'test', id: testId, controlIds: [controlIds[2]], requirementIds: [requirements[0]] },
        ],
      });
    });
    after(async () => {
      await fresh?.close();
      await server?.close();
      await base?.drop();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const send = (method: string, url: string, body: string | FormData, headers: Record<string, string> = {}) =>
      api(server.url, url, token, { method, headers: { 'idempotency-key': randomUUID(), ...headers }, body });
    const json = { 'content-type': 'application/json' };

    async function apply(write: Write) {
      if (write.kind === 'createFinding') {
        const vulnerabilityId = `VUL-${String(findings.length + 1).padStart(4, '0')}`;
        const res = await send(
          'POST',
          '/v1/vulnerabilities',
          JSON.stringify({ vulnerabilityId, title: 'Finding', severity: write.severity, status: 'open' }),
          json,
        );
        if (res.status === 201) findings.push(res.body.data.vulnerabilityId);
        else assert.equal(res.body.error.code, 'plan_restricted', JSON.stringify(res.body));
      } else if (write.kind === 'patchFinding') {
        if (findings.length === 0) return;
        const res = await send(
          'PATCH',
          `/v1/vulnerabilities/${findings[write.finding % findings.length]}`,
          JSON.stringify({ reportLink: write.reportLink }),
          json,
        );
        if (res.status !== 200) assert.equal(res.body.error.code, 'plan_restricted', JSON.stringify(res.body));
      } else if (write.kind === 'upload') {
        const form = new FormData();
        form.append('evidenceDate', String(Date.now() - 60_000));
        form.append('files', new Blob([randomUUID()]), 'export.txt');
        const res = await send('POST', `/v1/evidence/${evidenceIds[write.evidence % evidenceIds.length]}/attachments`, form);
        if (res.status !== 201) assert.equal(res.body.error.code, 'plan_restricted', JSON.stringify(res.body));
      } else if (write.kind === 'evidenceMove' || write.kind === 'policyMove') {
        const base =
          write.kind === 'evidenceMove' ? `/v1/evidence/${evidenceIds[write.evidence % evidenceIds.length]}` : `/v1/policies/${policyId}`;
        const bodies: Record<string, [string, string, unknown]> = {
          approve: ['POST', `${base}/approve`, {}],
          submit: ['POST', `${base}/submit`, {}],
          publish: ['POST', `${base}/publish`, { versionName: randomUUID() }],
          request_review: ['POST', `${base}/request_review`, {}],
          request_revision: ['POST', `${base}/request_revision`, { rejectionReason: 'Again' }],
          links: ['PATCH', base, { links: [{ displayName: 'Link', url: 'https://example.com/e' }] }],
          notRelevant: ['PATCH', base, { isRelevant: false, notRelevantReason: 'Out of scope' }],
          relevant: ['PATCH', base, { isRelevant: true }],
        };
        const [method, url, body] = bodies[write.move];
        const res = await send(method, url, JSON.stringify(body), json);
        if (res.status !== 200) assert.ok(['plan_restricted', 'validation_failed'].includes(res.body.error.code), JSON.stringify(res.body));
      } else {
        const plan = RESOURCES.filter((r) => r !== write.without).join(',');
        await updateOrganizationPlan({ ctx: server.system, input: { organizationId, plan } });
      }
    }

    const reads = () => [
      '/v1/controls',
      `/v1/controls?frameworkIds=${frameworkId}`,
      `/v1/controls/${controlIds[0]}?fields=complianceOverview,mappedArtifacts`,
      '/v1/frameworks',
      '/v1/evidence',
      `/v1/evidence/${evidenceIds[0]}`,
      '/v1/policies',
      `/v1/policies/${policyId}`,
      '/v1/tests',
      `/v1/tests/${testId}`,
      '/v1/vulnerabilities',
      ...findings.slice(-1).map((id) => `/v1/vulnerabilities/${id}`),
    ];

    test('after any sequence of writes, every cached answer equals a fresh computation', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(writeArb, { minLength: 1, maxLength: 5 }), async (writes) => {
          for (const write of writes) {
            // Warm every answer, write, then compare every answer with the uncached server's.
            for (const url of reads()) await api(server.url, url, token);
            await apply(write);
            for (const url of reads()) {
              const [cached, computed] = await Promise.all([api(server.url, url, token), api(fresh.url, url, token)]);
              assert.equal(cached.status, computed.status, `${url} after ${JSON.stringify(write)}`);
              assert.deepEqual(
                cached.body.data ?? cached.body.error?.code,
                computed.body.data ?? computed.body.error?.code,
                `${url} after ${JSON.stringify(write)}`,
              );
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
  });
}
