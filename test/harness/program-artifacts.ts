// Shared by the round trips of evidence, tests and findings (test/http/program-round-trip-artifacts
// and program-property-artifacts): organizations with a credential and the program verbs, the map
// of one organization's IDs to another's through the keys of an export, and every GET of the
// artifacts with every field and expansion.
import assert from 'node:assert/strict';
import { api, createOrgWithCredential, getToken, type TestServer } from './server.ts';
import { programContext, programVerbs } from './program.ts';
import { derivedRecordId, requirementRef } from '../../src/domain/kinds/keys.ts';
import { testIdFor } from '../../src/domain/kinds/reference-keys.ts';

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

export async function newOrg(server: TestServer, now = NOW): Promise<Org> {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
  return {
    id: client.organizationId,
    token: await getToken(server.url, client),
    verbs: programVerbs(
      programContext(server, client.credentialId, () => now),
      client.organizationId,
    ),
  };
}

/**
 * A's IDs → B's, through the keys the records of both organizations have (B applied A's export):
 * a record of A with a key row maps by it; one without (the demo's) exported its ID as its key,
 * or, for a test, the slug of its ID.
 */
export async function idMapByKeys(server: TestServer, a: Org, b: Org): Promise<Map<string, string>> {
  const rows = async (org: string) =>
    server.database.db.kysely.selectFrom('program_keys').select(['kind', 'key', 'record_id']).where('organization_id', '=', org).execute();
  const aIds = new Map((await rows(a.id)).map((r) => [`${r.kind}:${r.key}`, r.record_id]));
  const ids = new Map<string, string>();
  for (const r of await rows(b.id)) {
    if (r.kind === 'vulnerability') continue;
    const fallback = r.kind === 'test' ? testIdFor(a.id, r.key) : r.kind === 'requirement' ? r.key.slice(r.key.indexOf('/') + 1) : r.key;
    ids.set(aIds.get(`${r.kind}:${r.key}`) ?? fallback, r.record_id);
  }
  return ids;
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

/**
 * Only the attachments a document carries: external links. A record that holds files the service
 * hosts keeps them in its own organization, and so does the time at which they make it stale:
 * its `statusReason` (which names that time) is left out too, here and, through `hosted`, in the
 * copy (see withoutHostedReasons), where only its links tell the time.
 */
const linksOnly = (evidence: any, hosted: string[]) => {
  if (!evidence.attachments) return evidence;
  const links = evidence.attachments.filter((a: any) => a.url !== undefined);
  if (links.length === evidence.attachments.length) return evidence;
  hosted.push(evidence.evidenceId);
  const { statusReason: _hostedTime, ...rest } = evidence;
  return { ...rest, attachments: links };
};

/** The copy's evidence details without `statusReason` where the original held hosted files (`hosted`: the copy's IDs of those). */
export function withoutHostedReasons(details: any[], hosted: ReadonlySet<string>): any[] {
  return details.map((e) => {
    if (!hosted.has(e.evidenceId)) return e;
    const { statusReason: _hostedTime, ...rest } = e;
    return rest;
  });
}

/** Every GET of evidence, tests and findings, every field and expansion; and the computed fields of controls and frameworks. */
export async function artifactReads(server: TestServer, org: Org, limit = Infinity) {
  const get = async (path: string) => {
    // After minutes without a request (a scale-20 load and apply), the first request may reuse a
    // keep-alive connection the server has closed: it is sent again once.
    const res = await api(server.url, path, org.token).catch(() => api(server.url, path, org.token));
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const evidence = (await get(`/v1/evidence?fields=${EVIDENCE_LIST_FIELDS}`)).data;
  const evidenceDetails = [];
  const hosted: string[] = [];
  for (const e of evidence.slice(0, limit))
    evidenceDetails.push(linksOnly((await get(`/v1/evidence/${e.evidenceId}?fields=mappedTests,gaps,attachments,tickets`)).data, hosted));
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
  return { evidence, evidenceDetails, hosted, tests, testDetails, findings, findingDetails, fixYes, frameworks, controls, controlDetails };
}
