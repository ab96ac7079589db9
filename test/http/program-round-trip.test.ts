// The round trip (issue 25): export an organization, apply the export to an empty organization,
// and every GET answers the same as the original's, IDs mapped through keys. On the demo's
// organization (scale 1 here; the bench runs scale 20) and over generated documents (a property
// test). This file covers the kinds of program-core (entities, people, risks, custom fields,
// frameworks, controls, policies); program-kinds adds evidence, tests and findings, after which
// every field of every GET compares (until then the fields computed from those kinds are left out).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { programContext, programVerbs } from '../harness/program.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { PROGRAM_KINDS } from '../../src/domain/program/registry.ts';
import { derivedRecordId, requirementRef } from '../../src/domain/kinds/keys.ts';

const NOW = Date.UTC(2026, 0, 15);
const MINE = new Set(['entities', 'people', 'risks', 'customFields', 'frameworks', 'controls', 'policies']);

/** Every string of `value` that is a key of `ids` replaced by its value. */
function mapIds(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => mapIds(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapIds(v, ids)]));
  return value;
}

/** The answer without the fields the kinds not yet applied compute (see the top of this file). */
function withoutComputed(value: any): any {
  const drop = new Set(['status', 'controlCompliancePercentage', 'complianceOverview', 'mappedArtifacts', 'complianceProgress']);
  if (Array.isArray(value)) return value.map(withoutComputed);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !drop.has(k))
        .map(([k, v]) => [k, withoutComputed(v)]),
    );
  return value;
}

interface Org {
  id: string;
  token: string;
  verbs: ReturnType<typeof programVerbs>;
}

async function newOrg(server: TestServer): Promise<Org> {
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

/** Only the kinds program-core applies, and the actor people of an apply left out. */
function mineOnly(doc: Record<string, any>, dropPeople: (key: string) => boolean = () => false) {
  const out: Record<string, any> = { version: 1 };
  for (const [k, v] of Object.entries(doc)) if (MINE.has(k)) out[k] = v;
  out.people = out.people.filter((p: any) => !dropPeople(p.key));
  return out;
}

/** GETs of every resource of the program-core kinds, with every expansion. */
async function reads(server: TestServer, org: Org) {
  const get = async (path: string) => {
    const res = await api(server.url, path, org.token);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const frameworks = await get('/v1/frameworks?fields=addedBy,addedOn,lastModifiedBy,modifiedOn,tscSelections');
  const controls = await get(
    '/v1/controls?fields=mappedFrameworkIds,outOfScopeReason,markedOutOfScopeBy,addedBy,addedOn,lastModifiedBy,modifiedOn',
  );
  const policies = await get(
    '/v1/policies?fields=mappedFrameworkIds,mappedControlIds,notRelevantReason,effortEstimate,recurrence,addedBy,addedOn,lastModifiedBy,modifiedOn,source,policyBehavior,versionNumber,publishedBy,publishedOn',
  );
  const controlDetails = [];
  for (const c of controls.slice(0, 40)) controlDetails.push(await get(`/v1/controls/${c.controlId}?fields=mappedRisks`));
  const policyDetails = [];
  for (const p of policies.slice(0, 40))
    policyDetails.push(await get(`/v1/policies/${p.policyId}?fields=aiDetectedGaps,documents,versionHistory,tickets`));
  // policies show nothing computed from other kinds: compared whole
  return { ...withoutComputed({ frameworks, controls, controlDetails }), policies, policyDetails };
}

for (const dialect of dialects) {
  describe(`program documents: the round trip (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, now: () => NOW, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test("the demo's organization: export, apply to an empty organization, every GET answers the same", async () => {
      const a = await newOrg(server);
      await loadDemoData(server.database.db, a.id, { scale: 1, seed: 7, now: NOW });
      const exported = mineOnly(await a.verbs.export());
      const b = await newOrg(server);
      const plan = await b.verbs.apply(exported);
      assert.equal(plan.changed, true);
      // A's IDs are B's keys: A's record → B's record
      const ids = new Map(plan.changes.map((c) => [c.key, c.id]));
      for (const f of exported.frameworks)
        for (const r of f.requirements) ids.set(r.key, derivedRecordId(b.id, 'requirement', requirementRef(f.key, r.key)));
      const again = await b.verbs.export();
      const actors = (key: string) => key.startsWith('actor_') && !exported.people.some((p: any) => p.key === key);
      assert.deepEqual(mineOnly(again, actors), exported);
      // The same document again: nothing to do.
      assert.equal((await b.verbs.plan(exported)).changed, false);
      assert.equal((await a.verbs.plan(exported)).changed, false);

      const [ra, rb] = [await reads(server, a), await reads(server, b)];
      // requirement IDs are not keys of the plan's changes: map them through the exports' keys
      assert.deepEqual(rb.frameworks, mapIds(ra.frameworks, ids));
      assert.deepEqual(rb.controls, mapIds(ra.controls, ids));
      assert.deepEqual(rb.policies, mapIds(ra.policies, ids));
      assert.deepEqual(rb.controlDetails, mapIds(ra.controlDetails, ids));
      assert.deepEqual(rb.policyDetails, mapIds(ra.policyDetails, ids));
    });
  });
}

const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const text = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}[A-Za-z0-9]$/);
const ms = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
const some = <T>(values: readonly T[], max = 3) =>
  values.length === 0 ? fc.constant([] as T[]) : fc.uniqueArray(fc.constantFrom(...values), { maxLength: max });

/** A program document of the program-core kinds, every reference to a key it defines. */
const programDocument = fc
  .record({
    entities: fc.uniqueArray(fc.record({ key, name: text }), { maxLength: 3, selector: (e) => e.key }),
    people: fc.uniqueArray(fc.record({ key, name: text }), { minLength: 1, maxLength: 4, selector: (p) => p.key }),
    risks: fc.uniqueArray(fc.record({ key, name: text }), { maxLength: 3, selector: (r) => r.key }),
    frameworks: fc.uniqueArray(
      fc.record({
        key,
        name: text,
        requirements: fc.uniqueArray(fc.record({ key, code: text, name: text }), { minLength: 1, maxLength: 4, selector: (r) => r.key }),
        nextAuditDate: fc.option(ms, { nil: null }),
        tscSelections: fc.uniqueArray(fc.constantFrom('Security', 'Availability', 'Privacy'), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 3, selector: (f) => f.key },
    ),
    controlKeys: fc.uniqueArray(key, { maxLength: 4 }),
    policyKeys: fc.uniqueArray(key, { maxLength: 4 }),
  })
  .chain((raw) => {
    // Names unique per kind: lists order by name, then by ID, and IDs differ between organizations.
    const unique = <T extends { name: string }>(list: T[]) => list.map((x, i) => ({ ...x, name: `${x.name} ${i}` }));
    const base = {
      ...raw,
      entities: unique(raw.entities),
      people: unique(raw.people),
      risks: unique(raw.risks),
      frameworks: unique(raw.frameworks).map((f) => ({ ...f, requirements: unique(f.requirements) })),
    };
    const people = base.people.map((p, i) => ({ ...p, email: `${p.key}.${i}@example.com` }));
    const personKeys = people.map((p) => p.key);
    const entityKeys = base.entities.map((e) => e.key);
    const riskKeys = base.risks.map((r) => r.key);
    const requirementRefs = base.frameworks.flatMap((f) => f.requirements.map((r) => `${f.key}/${r.key}`));
    const frameworks = fc.tuple(...base.frameworks.map((f) => some(entityKeys).map((entities) => ({ ...f, entities }))));
    const controls = fc.tuple(
      ...base.controlKeys.map((k, i) =>
        fc
          .record({
            key: fc.constant(k),
            code: fc.constant(`CTL-${i}`),
            name: text.map((t) => `${t} ${i}`),
            description: fc.option(text, { nil: null }),
            domain: text,
            functionGrouping: fc.constantFrom('govern', 'identify', 'protect', 'detect', 'respond', 'recover'),
            scope: fc.constantFrom('in_scope', 'out_of_scope'),
            questions: fc.array(text, { maxLength: 2 }),
            assignees: some(personKeys, 2).map((ks) => ks.map((person, j) => ({ person, isPrimary: j === 0 }))),
            entities: some(entityKeys),
            requirements: some(requirementRefs),
            risks: some(riskKeys),
            addedBy: fc.constantFrom(...personKeys),
            addedOn: ms,
          })
          .map((c) => (c.scope === 'out_of_scope' ? { ...c, outOfScopeReason: 'Not used', markedOutOfScopeBy: c.addedBy } : c)),
      ),
    );
    return fc.tuple(frameworks, controls).chain(([fws, ctls]) => {
      const controlKeys = ctls.map((c) => c.key);
      const policies = fc.tuple(
        ...base.policyKeys.map((k, i) =>
          fc.record({
            key: fc.constant(k),
            customId: fc.constant(`POL-${i}`),
            name: text.map((t) => `${t} ${i}`),
            status: fc.constantFrom('not_uploaded', 'draft', 'published', 'needs_review'),
            isRelevant: fc.boolean(),
            department: fc.option(fc.constantFrom('Security', 'IT'), { nil: null }),
            recurrence: fc.option(fc.constantFrom('yearly', 'quarterly'), { nil: null }),
            assignees: some(personKeys, 2).map((ks) => ks.map((person) => ({ person, isPrimary: false }))),
            approvers: some(personKeys, 2),
            entities: some(entityKeys),
            controls: some(controlKeys),
            requirements: some(requirementRefs),
            risks: some(riskKeys),
            documents: fc.array(
              fc.record({
                displayName: text,
                type: fc.constant('link'),
                url: key.map((k) => `https://docs.example.com/${k}`),
                addedOn: ms,
              }),
              { maxLength: 2 },
            ),
            versionHistory: fc.array(fc.record({ versionName: text, publishedOn: ms, publishedBy: fc.constantFrom(...personKeys) }), {
              maxLength: 2,
            }),
            tickets: fc.array(
              fc.record({ ticketId: key, source: fc.constant('jira'), url: key.map((k) => `https://jira.example.com/${k}`) }),
              {
                maxLength: 2,
              },
            ),
          }),
        ),
      );
      return policies.map((pols) => ({
        version: 1,
        entities: base.entities,
        people,
        risks: base.risks,
        customFields: [],
        frameworks: fws,
        controls: ctls,
        policies: pols,
      }));
    });
  });

for (const dialect of dialects) {
  describe(`program documents: the round trip over generated documents (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, now: () => NOW, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test('apply, export, apply the export elsewhere: the same program and the same GETs; applying again changes nothing', async () => {
      await fc.assert(
        fc.asyncProperty(programDocument, async (document) => {
          const a = await newOrg(server);
          await a.verbs.apply(document);
          assert.equal((await a.verbs.plan(document)).changed, false, 'the same document again changes nothing');
          const exported = mineOnly(await a.verbs.export());
          const known = new Set(exported.people.map((p: { key: string }) => p.key));
          const ownActor = (k: string) => k.startsWith('actor_') && !known.has(k);
          const b = await newOrg(server);
          await b.verbs.apply(exported);
          const [ea, eb] = [await a.verbs.export(), await b.verbs.export()];
          assert.deepEqual(mineOnly(eb, ownActor), mineOnly(ea));
          // the same keys name the records of each organization
          const idMap = new Map<string, string>();
          const aIds = await keyedIds(server, a.id);
          const bIds = await keyedIds(server, b.id);
          for (const [k, id] of aIds) if (bIds.has(k)) idMap.set(id, bIds.get(k)!);
          assert.deepEqual(await reads(server, b), mapIds(await reads(server, a), idMap));
        }),
        { numRuns: 12 },
      );
    });
  });
}

/** Every record of the organization by kind and key (program_keys, and the requirements' own keys). */
async function keyedIds(server: TestServer, organizationId: string): Promise<Map<string, string>> {
  const rows = await server.database.db.kysely
    .selectFrom('program_keys')
    .select(['kind', 'key', 'record_id'])
    .where('organization_id', '=', organizationId)
    .execute();
  return new Map(rows.map((r) => [`${r.kind}:${r.key}`, r.record_id]));
}

void PROGRAM_KINDS;
