// Program documents, third-party findings end to end (issue 25): an apply creates findings under
// their public IDs (`<source>%23<key>`) that GET shows with every field and expansion, custom field
// values by key, and the counts the list's filters read; a re-apply writes nothing; create and
// change record vulnerability.created and vulnerability.updated; prune deletes findings with their
// children and keeps the counters right; bad input names JSON pointers. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { dataVersions, programContext, programVerbs, rejection, rowCounts } from '../harness/program.ts';
import { storedEvents } from '../harness/events.ts';

const NOW = Date.UTC(2026, 0, 15);
const DAY = 86_400_000;

const doc = () => ({
  version: 1,
  people: [{ key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' }],
  risks: [{ key: 'breach', name: 'Data breach' }],
  customFields: [
    { key: 'team', resourceType: 'vulnerability', title: 'Team', fieldType: 'dropdown', options: ['Platform', 'Payments'] },
    { key: 'ticket-note', resourceType: 'vulnerability', title: 'Note', fieldType: 'text_box' },
  ],
  vulnerabilities: [
    {
      key: 'snyk%23CVE-2024-12345',
      title: 'Prototype pollution in lodash',
      status: 'open' as string,
      severity: 'high',
      cveId: 'CVE-2024-12345',
      fixAvailable: 'yes',
      description: 'Lodash before 4.17.21.',
      remediation: 'Upgrade lodash.',
      stepsToReproduce: 'Run the scan.',
      firstSeen: NOW - 30 * DAY,
      lastScannedOn: NOW - DAY,
      cvssScore: 7.5,
      sla: 30,
      reportLink: 'https://snyk.example.com/CVE-2024-12345',
      assignees: [{ person: 'ada', isPrimary: true }],
      customFields: [{ field: 'team', value: 'Platform' }],
      affectedResources: [
        { name: 'web', type: 'repository', tags: ['env:prod'], status: 'open' },
        { name: 'api', type: 'repository', firstSeen: NOW - 10 * DAY, status: 'closed' },
      ],
      tickets: [{ id: 'SEC-9', source: 'jira', url: 'https://jira.example.com/browse/SEC-9' }],
      risks: ['breach'],
      addedBy: 'ada',
      addedOn: NOW - 30 * DAY,
    },
    { key: 'api%23VUL-0001', title: 'Weak TLS', severity: 'low' },
  ],
});

for (const dialect of dialects) {
  describe(`program documents: vulnerabilities (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let org: string;
    let verbs: ReturnType<typeof programVerbs>;

    before(async () => {
      server = await startServer({ dialect, now: () => NOW });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      org = client.organizationId;
      token = await getToken(server.url, client);
      verbs = programVerbs(
        programContext(server, client.credentialId, () => NOW),
        org,
      );
    });
    after(() => server.close());

    test('apply creates findings under their public IDs with every field and expansion, and their events', async () => {
      const seen = (await storedEvents(server.database, org)).length;
      const plan = await verbs.apply(doc());
      assert.deepEqual(plan.counts.vulnerabilities, { created: 2, updated: 0, deleted: 0, unchanged: 0 });
      assert.deepEqual(
        plan.changes
          .filter((c) => c.kind === 'vulnerabilities')
          .map((c) => c.id)
          .sort(),
        ['api%23VUL-0001', 'snyk%23CVE-2024-12345'],
      );
      const res = await api(
        server.url,
        '/v1/vulnerabilities/snyk%23CVE-2024-12345?fields=affectedResources,tickets,mappedRisks&resourceStatus=open,closed',
        token,
      );
      assert.equal(res.status, 200);
      const v = res.body.data;
      assert.equal(v.vulnerabilityId, 'snyk%23CVE-2024-12345');
      assert.equal(v.source, 'snyk');
      assert.equal(v.title, 'Prototype pollution in lodash');
      assert.equal(v.severity, 'high');
      assert.equal(v.cveId, 'CVE-2024-12345');
      assert.equal(v.description, 'Lodash before 4.17.21.');
      assert.equal(v.cvssScore, 7.5);
      assert.equal(v.sla, 30);
      assert.equal(v.reportLink, 'https://snyk.example.com/CVE-2024-12345');
      assert.equal(v.stepsToReproduce, 'Run the scan.');
      assert.equal(v.firstSeen, NOW - 30 * DAY);
      assert.equal(v.lastScannedOn, NOW - DAY);
      assert.deepEqual(v.assignees, [{ name: 'Ada Lovelace', email: 'ada@example.com', isPrimary: true }]);
      assert.deepEqual(v.addedBy, { name: 'Ada Lovelace', email: 'ada@example.com' });
      assert.deepEqual(
        v.customFields.map((f: any) => [f.title, f.fieldValue]),
        [
          ['Team', 'Platform'],
          ['Note', ''],
        ],
      );
      assert.deepEqual(v.affectedResources, [
        { name: 'api', type: 'repository', tags: [], firstSeen: NOW - 10 * DAY, status: 'closed' },
        { name: 'web', type: 'repository', tags: ['env:prod'], firstSeen: NOW - 30 * DAY, status: 'open' },
      ]);
      assert.deepEqual(v.tickets, [{ id: 'SEC-9', url: 'https://jira.example.com/browse/SEC-9', source: 'jira' }]);
      assert.deepEqual(
        v.mappedRisks.map((r: any) => r.riskName),
        ['Data breach'],
      );
      const weak = (await api(server.url, '/v1/vulnerabilities/api%23VUL-0001', token)).body.data;
      assert.equal(weak.status, 'open');
      assert.equal(weak.cveId, '');
      assert.equal(weak.firstSeen, NOW);
      // the counters behind the list's filters and resourcesCount follow the triggers
      const list = (await api(server.url, '/v1/vulnerabilities?fields=resourcesCount&fixAvailable=yes', token)).body.data;
      assert.deepEqual(
        list.map((x: any) => [x.vulnerabilityId, x.resourcesCount]),
        [['snyk%23CVE-2024-12345', 2]],
      );
      const events = (await storedEvents(server.database, org)).slice(seen).filter((e) => e.type === 'vulnerability.created');
      assert.equal(events.length, 2);
      const created = events.find((e) => e.resourceId === 'snyk%23CVE-2024-12345')!;
      const get = (await api(server.url, '/v1/vulnerabilities/snyk%23CVE-2024-12345', token)).body.data;
      assert.deepEqual((created.data as any).vulnerability, get);
    });

    test('the same document again writes no row, records no event and moves no data version', async () => {
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const events = (await storedEvents(server.database, org)).length;
      const plan = await verbs.apply(doc());
      assert.equal(plan.changed, false);
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);
      assert.equal((await storedEvents(server.database, org)).length, events);
      assert.equal((await verbs.plan(await verbs.export())).changed, false);
    });

    test('a change records vulnerability.updated with the fields GET shows', async () => {
      const changed = doc();
      changed.vulnerabilities[0].status = 'acknowledged';
      changed.vulnerabilities[0].customFields = [{ field: 'team', value: 'Payments' }];
      const seen = (await storedEvents(server.database, org)).length;
      await verbs.apply(changed);
      const events = (await storedEvents(server.database, org)).slice(seen);
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'vulnerability.updated');
      assert.equal(events[0].resourceId, 'snyk%23CVE-2024-12345');
      const changes = (events[0].data as any).changes;
      assert.deepEqual(Object.keys(changes).sort(), ['customFields', 'lastModifiedBy', 'modifiedOn', 'status']);
      assert.deepEqual(changes.status, { before: 'open', after: 'acknowledged' });
      const acknowledged = (await api(server.url, '/v1/vulnerabilities?status=acknowledged', token)).body.data;
      assert.deepEqual(
        acknowledged.map((x: any) => x.vulnerabilityId),
        ['snyk%23CVE-2024-12345'],
      );
      assert.equal(acknowledged[0].customFields[0].fieldValue, 'Payments');
    });

    test('prune deletes the findings the document does not list, with their children', async () => {
      const plan = await verbs.apply({ version: 1, vulnerabilities: [doc().vulnerabilities[1]] }, true);
      assert.deepEqual(plan.counts.vulnerabilities, { created: 0, updated: 0, deleted: 1, unchanged: 1 });
      const list = (await api(server.url, '/v1/vulnerabilities?fields=resourcesCount', token)).body.data;
      assert.deepEqual(
        list.map((x: any) => x.vulnerabilityId),
        ['api%23VUL-0001'],
      );
      assert.equal((await api(server.url, '/v1/vulnerabilities?severity=high', token)).body.data.length, 0);
      const left = await server.database.db.kysely
        .selectFrom('vulnerability_resources')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', org)
        .executeTakeFirstOrThrow();
      assert.equal(Number(left.n), 0);
    });

    test('bad input is refused with JSON pointers, and nothing is written', async () => {
      const rows = await rowCounts(server, org);
      const bad = doc();
      (bad.vulnerabilities[0] as any).key = 'nessus%23X-1';
      (bad.vulnerabilities[1] as any).severity = 'urgent';
      (bad.vulnerabilities[0].affectedResources![0] as any).tags = ['a', 'b', 'c', 'd'];
      const schema = await rejection(verbs.apply(bad));
      assert.deepEqual(schema.details.map((d) => d.field).sort(), [
        '/vulnerabilities/0/affectedResources/0/tags',
        '/vulnerabilities/0/key',
        '/vulnerabilities/1/severity',
      ]);
      const refs = doc();
      refs.vulnerabilities[0].customFields = [{ field: 'colour', value: 'red' }];
      refs.vulnerabilities[0].assignees = [{ person: 'nobody', isPrimary: true }];
      const refError = await rejection(verbs.apply(refs));
      assert.deepEqual(refError.details.map((d) => d.field).sort(), [
        '/vulnerabilities/0/assignees/0/person',
        '/vulnerabilities/0/customFields/0/field',
      ]);
      // a dropdown takes one of its options, as PATCH checks
      const dropdown = doc();
      dropdown.vulnerabilities[0].customFields = [{ field: 'team', value: 'Marketing' }];
      const valueError = await rejection(verbs.apply(dropdown));
      assert.deepEqual(valueError.details, [
        { field: '/vulnerabilities/0/customFields/0/value', message: "must be one of the field's options: Platform, Payments" },
      ]);
      assert.deepEqual(await rowCounts(server, org), rows);
    });

    test('every wrong dropdown value is named however many findings the document lists, and nothing is written', async () => {
      // the pipeline writes a kind a chunk of records at a time (pipeline.ts, CHANGE_CHUNK): the
      // problems of every chunk are reported, not only the first chunk's
      const rows = await rowCounts(server, org);
      const many = doc();
      for (let i = 0; i < 4100; i++) many.vulnerabilities.push({ key: `api%23BULK-${i}`, title: `Finding ${i}`, severity: 'low' });
      const bad = (i: number) => Object.assign(many.vulnerabilities[i], { customFields: [{ field: 'team', value: 'Marketing' }] });
      for (const i of [3, 2500, 4101]) bad(i);
      const error = await rejection(verbs.apply(many));
      assert.deepEqual(
        error.details.map((d) => d.field),
        [
          '/vulnerabilities/3/customFields/0/value',
          '/vulnerabilities/2500/customFields/0/value',
          '/vulnerabilities/4101/customFields/0/value',
        ],
      );
      assert.deepEqual(await rowCounts(server, org), rows);
    });

    test('more findings than a chunk: every one is written with its children and has its created event, in order', async () => {
      // the pipeline writes a kind and builds its own events 2,000 records at a time (pipeline.ts)
      const other = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      const otherToken = await getToken(server.url, other);
      const otherVerbs = programVerbs(
        programContext(server, other.credentialId, () => NOW),
        other.organizationId,
      );
      const many = { ...doc(), vulnerabilities: [] as Array<Record<string, unknown>> };
      for (let i = 0; i < 4100; i++)
        many.vulnerabilities.push({
          key: `api%23BULK-${String(i).padStart(4, '0')}`,
          title: `Finding ${i}`,
          severity: 'low',
          assignees: [{ person: 'ada', isPrimary: true }],
          customFields: [{ field: 'team', value: i % 2 === 0 ? 'Platform' : 'Payments' }],
          affectedResources: [{ name: `host-${i}`, type: 'host' }],
        });
      const plan = await otherVerbs.apply(many);
      assert.deepEqual(plan.counts.vulnerabilities, { created: 4100, updated: 0, deleted: 0, unchanged: 0 });
      const created = (await storedEvents(server.database, other.organizationId)).filter((e) => e.type === 'vulnerability.created');
      assert.deepEqual(
        created.map((e) => e.resourceId),
        many.vulnerabilities.map((v) => v.key),
      );
      for (const i of [0, 1999, 2000, 4099]) {
        const id = many.vulnerabilities[i].key as string;
        const get = (await api(server.url, `/v1/vulnerabilities/${id}`, otherToken)).body.data;
        assert.deepEqual((created[i].data as any).vulnerability, get, id);
        assert.equal(get.customFields.find((f: any) => f.title === 'Team').fieldValue, i % 2 === 0 ? 'Platform' : 'Payments');
      }
      assert.equal((await otherVerbs.plan(many)).changed, false);
    });
  });
}
