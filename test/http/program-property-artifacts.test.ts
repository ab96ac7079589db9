// The round trip of evidence, tests and findings over generated documents (issue 25): apply a
// document, apply it again (nothing changes), export, apply the export to an empty organization,
// and every GET of evidence, tests and findings (every field and expansion), of the controls and
// frameworks they count in, answers the same, IDs mapped through keys; the export applied again
// changes nothing either. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { startServer, type TestServer } from '../harness/server.ts';
import { artifactReads, idMapByKeys, mapIds, newOrg } from '../harness/program-artifacts.ts';

const NOW = Date.UTC(2026, 0, 15);

const slug = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
const text = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}[A-Za-z0-9]$/);
const ms = fc.integer({ min: Date.UTC(2020, 0, 1), max: NOW });
const some = <T>(values: readonly T[], max = values.length) =>
  values.length === 0 ? fc.constant([] as T[]) : fc.uniqueArray(fc.constantFrom(...values), { maxLength: max });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const tickets = (field: 'ticketId' | 'id') =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 999 }), { maxLength: 2 })
    .map((ns) => ns.map((n) => ({ [field]: `SEC-${n}`, source: 'jira', url: `https://jira.example.com/browse/SEC-${n}` })));

const PEOPLE = ['ada', 'bob', 'cy'];
const ENTITIES = ['payments', 'core'];
const RISKS = ['breach', 'outage'];
const REQUIREMENTS = ['soc2/CC6.1', 'soc2/CC6.2', 'soc2/CC7.1'];
const CONTROLS = ['access', 'backup'];

const base = {
  version: 1,
  people: PEOPLE.map((key) => ({ key, name: `Person ${key}`, email: `${key}@example.com` })),
  entities: ENTITIES.map((key) => ({ key, name: `Entity ${key}` })),
  risks: RISKS.map((key) => ({ key, name: `Risk ${key}` })),
  customFields: [
    { key: 'team', resourceType: 'vulnerability', title: 'Team', fieldType: 'dropdown', options: ['Platform', 'Payments'] },
    { key: 'note', resourceType: 'vulnerability', title: 'Note', fieldType: 'text_box' },
  ],
  frameworks: [
    {
      key: 'soc2',
      name: 'SOC 2',
      requirements: REQUIREMENTS.map((r) => {
        const key = r.split('/')[1];
        return { key, code: key, name: `Requirement ${key}` };
      }),
    },
  ],
  controls: CONTROLS.map((key, i) => ({
    key,
    code: `CTL-${i}`,
    name: `Control ${key}`,
    domain: 'Operations',
    functionGrouping: 'protect',
    requirements: [REQUIREMENTS[i]],
  })),
};

const testEntry = (key: string, i: number) =>
  fc.record({
    key: fc.constant(key),
    name: text.map((t) => `${t} ${i}`),
    kind: fc.constantFrom('automated', 'cloud'),
    result: fc.constantFrom('ignored', 'fix_required', 'passing'),
    integrationFailing: fc.boolean(),
    applications: some(['AWS', 'Okta', 'GitHub'], 2),
    description: maybe(text),
    ignoreReason: maybe(text),
    lastScannedOn: maybe(ms),
    assignees: some(PEOPLE, 2).map((ps) => ps.map((person, j) => ({ person, isPrimary: j === 0 }))),
    entities: some(ENTITIES),
    controls: some(CONTROLS),
    requirements: some(REQUIREMENTS),
    risks: some(RISKS),
    tickets: tickets('ticketId'),
    resources: fc
      .array(
        fc.record({
          name: text,
          status: fc.constantFrom('ignored', 'fix_required', 'passing'),
          lastScannedAt: ms,
          assignees: some(PEOPLE, 1),
          tags: fc.uniqueArray(fc.constantFrom('env:prod', 'team:platform'), { maxLength: 2 }),
          region: fc.constantFrom('us-east-1', 'eu-west-1'),
          entities: some(ENTITIES),
        }),
        { maxLength: 3 },
      )
      .map((rs) => rs.map((r, j) => ({ resourceId: `res-${i}-${j}`, ...r }))),
    history: fc.array(fc.record({ scannedOn: ms, status: fc.constantFrom('passing', 'fix_required', 'affected', 'ignored') }), {
      maxLength: 3,
    }),
    addedOn: ms,
  });

const programDocument = fc
  .record({
    testKeys: fc.uniqueArray(slug, { maxLength: 3 }),
    evidenceCount: fc.integer({ min: 0, max: 3 }),
    findingCount: fc.integer({ min: 0, max: 3 }),
  })
  .chain(({ testKeys, evidenceCount, findingCount }) => {
    const tests = fc.tuple(...testKeys.map((k, i) => testEntry(k, i)));
    const evidence = fc.tuple(
      ...Array.from({ length: evidenceCount }, (_, i) =>
        fc.record({
          key: fc.constant(`evidence-${i}`),
          name: text.map((t) => `${t} ${i}`),
          status: fc.constantFrom('not_uploaded', 'uploaded', 'needs_attention', 'pending_approval'),
          isRelevant: fc.boolean(),
          department: maybe(fc.constantFrom('Security', 'IT')),
          recurrence: maybe(fc.constantFrom('monthly', 'quarterly', 'yearly', 'one_time')),
          gaps: fc.array(text, { maxLength: 2 }),
          requirementText: maybe(text),
          assignees: some(PEOPLE, 2).map((ps) => ps.map((person, j) => ({ person, isPrimary: j === 0 }))),
          approvers: some(PEOPLE, 2),
          entities: some(ENTITIES),
          controls: some(CONTROLS),
          requirements: some(REQUIREMENTS),
          tests: some(testKeys),
          tickets: tickets('ticketId'),
          attachments: fc
            .array(fc.record({ displayName: text, evidenceDate: ms, note: maybe(text) }), { maxLength: 2 })
            .map((ls) => ls.map((l, j) => ({ ...l, url: `https://drive.example.com/${i}/${j}` }))),
          addedBy: fc.constantFrom(...PEOPLE),
        }),
      ),
    );
    const vulnerabilities = fc.tuple(
      ...Array.from({ length: findingCount }, (_, i) =>
        fc.record({
          key: fc.constantFrom('snyk', 'github', 'api', 'import').map((s) => `${s}%23VUL-${String(i + 1).padStart(4, '0')}`),
          title: text,
          status: fc.constantFrom('open', 'closed', 'acknowledged', 'ignored', 'risk'),
          severity: fc.constantFrom('critical', 'high', 'medium', 'low'),
          fixAvailable: maybe(fc.constantFrom('yes', 'no')),
          description: maybe(text),
          firstSeen: ms,
          cvssScore: maybe(fc.integer({ min: 0, max: 100 }).map((n) => n / 10)),
          sla: maybe(fc.integer({ min: 1, max: 365 })),
          assignees: some(PEOPLE, 1).map((ps) => ps.map((person) => ({ person, isPrimary: true }))),
          customFields: fc.record({ team: maybe(fc.constantFrom('Platform', 'Payments')), note: maybe(text) }).map((v) =>
            Object.entries(v)
              .filter(([, value]) => value !== null)
              .map(([field, value]) => ({ field, value: value as string })),
          ),
          affectedResources: fc.array(
            fc.record({
              name: text,
              type: fc.constantFrom('repository', 'package'),
              tags: fc.uniqueArray(fc.constantFrom('env:prod', 'env:dev'), { maxLength: 2 }),
              status: fc.constantFrom('open', 'closed', 'risk'),
            }),
            { maxLength: 3 },
          ),
          tickets: tickets('id'),
          risks: some(RISKS),
        }),
      ),
    );
    return fc.tuple(tests, evidence, vulnerabilities).map(([t, e, v]) => ({ ...base, tests: t, evidence: e, vulnerabilities: v }));
  });

for (const dialect of dialects) {
  describe(`program documents: evidence, tests and findings over generated documents (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, now: () => NOW, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test('apply, apply again, export, apply the export elsewhere: the same GETs, and nothing more to change', async () => {
      await fc.assert(
        fc.asyncProperty(programDocument, async (document) => {
          const a = await newOrg(server);
          await a.verbs.apply(document);
          assert.equal((await a.verbs.plan(document)).changed, false, 'the same document again changes nothing');
          const exported = (await a.verbs.export()) as Record<string, any>;
          assert.equal((await a.verbs.plan(exported)).changed, false, 'its own export changes nothing');
          const b = await newOrg(server);
          await b.verbs.apply(exported);
          assert.equal((await b.verbs.plan(exported)).changed, false, 'the export again changes nothing');
          const ids = await idMapByKeys(server, a, b);
          const [ra, rb] = [await artifactReads(server, a), await artifactReads(server, b)];
          assert.deepEqual(rb, mapIds(ra, ids));
        }),
        { numRuns: 10 },
      );
    });
  });
}
