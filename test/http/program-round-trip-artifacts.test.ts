// The round trip with evidence, tests and findings (issue 25): export the demo's organization
// whole, apply the export to an empty organization, and every GET of evidence, tests and findings
// (every field, every expansion, resources of every status) answers the same as the original's,
// IDs mapped through keys; so do the fields computed from them (control status, framework
// progress, mapped artifacts). Files the service hosts stay with the organization that received
// them (the demo's file records included): they are not exported, so attachments compare as the
// external links. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { programContext, programVerbs } from '../harness/program.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { derivedRecordId, requirementRef } from '../../src/domain/program/keys.ts';
import { testIdFor } from '../../src/domain/program/reference-keys.ts';

const NOW = Date.UTC(2026, 0, 15);

/** Every string of `value` that is a key of `ids` replaced by its value. */
export function mapIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => mapIds(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapIds(v, ids)]));
  return value;
}

export interface Org {
  id: string;
  token: string;
  verbs: ReturnType<typeof programVerbs>;
}

export async function newOrg(server: TestServer): Promise<Org> {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
  return {
    id: client.organizationId,
    token: await getToken(server.url, client),
    verbs: programVerbs(
      programContext(server, client.credentialId, () => NOW),
      client.organizationId,
    ),
  };
}

/** A's IDs → B's, through the keys of A's export (B applied it). */
export function idMap(exported: Record<string, any>, a: Org, b: Org, changes: readonly { key: string; id: string; kind: string }[]) {
  const ids = new Map<string, string>();
  for (const c of changes) {
    if (c.kind === 'tests') ids.set(testIdFor(a.id, c.key), c.id);
    else if (c.kind !== 'vulnerabilities') ids.set(c.key, c.id);
  }
  for (const f of exported.frameworks ?? [])
    for (const r of f.requirements) ids.set(r.key, derivedRecordId(b.id, 'requirement', requirementRef(f.key, r.key)));
  return ids;
}

const EVIDENCE_LIST_FIELDS =
  'mappedFrameworkIds,mappedControlIds,notRelevantReason,recurrence,effortEstimate,source,evidenceCollectionMethod,ticketsCount,addedBy,addedOn,lastModifiedBy,modifiedOn';
const TEST_LIST_FIELDS = 'mappedFrameworkIds,effortEstimate,ignoreReason,addedOn,modifiedOn,ticketsCount';

/** Only the attachments a document carries: external links. */
const linksOnly = (evidence: any) =>
  evidence.attachments ? { ...evidence, attachments: evidence.attachments.filter((a: any) => a.url !== undefined) } : evidence;

/** Every GET of evidence, tests and findings, every field and expansion; and the computed fields of controls and frameworks. */
export async function artifactReads(server: TestServer, org: Org, limit = Infinity) {
  const get = async (path: string) => {
    const res = await api(server.url, path, org.token);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const evidence = (await get(`/v1/evidence?fields=${EVIDENCE_LIST_FIELDS}`)).data;
  const evidenceDetails = [];
  for (const e of evidence.slice(0, limit))
    evidenceDetails.push(linksOnly((await get(`/v1/evidence/${e.evidenceId}?fields=mappedTests,gaps,attachments,tickets`)).data));
  const tests = (await get(`/v1/tests?fields=${TEST_LIST_FIELDS}`)).data;
  const testDetails = [];
  for (const t of tests.slice(0, limit))
    testDetails.push(
      (await get(`/v1/tests/${t.testId}?fields=tickets,mappedRisks,testHistory&resourceStatus=ignored,fix_required,passing`)).data,
    );
  const findings = [];
  let cursor: string | null = null;
  do {
    const page: any = await get(
      `/v1/vulnerabilities?count=100&fields=cvssScore,resourcesCount,firstSeen${cursor ? `&nextCursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    findings.push(...page.data);
    cursor = page.meta.nextCursor;
  } while (cursor);
  const findingDetails = [];
  for (const v of findings.slice(0, limit))
    findingDetails.push(
      (
        await get(
          `/v1/vulnerabilities/${v.vulnerabilityId}?fields=affectedResources,tickets,mappedRisks&resourceStatus=open,closed,acknowledged,ignored,risk`,
        )
      ).data,
    );
  const fixYes = (await get('/v1/vulnerabilities?fixAvailable=yes&count=50')).meta.totalCount;
  const frameworks = (await get('/v1/frameworks')).data;
  const controls = (await get('/v1/controls')).data;
  const controlDetails = [];
  for (const c of controls.slice(0, Math.min(limit, 40))) controlDetails.push((await get(`/v1/controls/${c.controlId}`)).data);
  return { evidence, evidenceDetails, tests, testDetails, findings, findingDetails, fixYes, frameworks, controls, controlDetails };
}

for (const dialect of dialects) {
  describe(`program documents: the round trip of evidence, tests and findings (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, now: () => NOW, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test("the demo's organization: export, apply to an empty organization, every GET answers the same", async () => {
      const a = await newOrg(server);
      await loadDemoData(server.database.db, a.id, { scale: 1, seed: 11, now: NOW });
      const exported = (await a.verbs.export()) as Record<string, any>;
      assert.ok(exported.evidence.length > 0 && exported.tests.length > 0 && exported.vulnerabilities.length > 0);
      // no file the service hosts is carried: only external links
      for (const e of exported.evidence) for (const l of e.attachments ?? []) assert.match(l.url, /^https?:\/\//);
      const b = await newOrg(server);
      const plan = await b.verbs.apply(exported);
      assert.equal(plan.changed, true);
      const ids = idMap(exported, a, b, plan.changes);
      // the same document again changes nothing, in either organization
      assert.equal((await b.verbs.plan(exported)).changed, false);
      assert.equal((await a.verbs.plan(exported)).changed, false);

      const [ra, rb] = [await artifactReads(server, a), await artifactReads(server, b)];
      const mapped = mapIds(ra, ids) as typeof ra;
      assert.deepEqual(rb.evidence, mapped.evidence);
      assert.deepEqual(rb.evidenceDetails, mapped.evidenceDetails);
      assert.deepEqual(rb.tests, mapped.tests);
      assert.deepEqual(rb.testDetails, mapped.testDetails);
      assert.deepEqual(rb.findings, mapped.findings);
      assert.deepEqual(rb.findingDetails, mapped.findingDetails);
      assert.equal(rb.fixYes, ra.fixYes);
      assert.deepEqual(rb.frameworks, mapped.frameworks);
      assert.deepEqual(rb.controls, mapped.controls);
      assert.deepEqual(rb.controlDetails, mapped.controlDetails);
    });
  });
}
