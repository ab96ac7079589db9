// Program documents, frameworks end to end (issue 25): apply creates frameworks and requirements
// that GET /v1/frameworks shows; a re-apply changes nothing; a plan names each changed field;
// prune deletes only what the document's kinds do not list; bad documents are refused with JSON
// pointers and nothing written. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, addCredential, type TestServer } from '../harness/server.ts';
import { dataVersions, programContext, programVerbs, rejection, rowCounts } from '../harness/program.ts';
import { storedEvents } from '../harness/events.ts';

const NOW = Date.UTC(2026, 0, 15);

const doc = () => ({
  version: 1,
  entities: [{ key: 'payments', name: 'Payments' }],
  people: [{ key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' }],
  frameworks: [
    {
      key: 'soc2',
      name: 'SOC 2',
      requirements: [
        { key: 'CC6.1', code: 'CC6.1', name: 'Logical access' },
        { key: 'CC6.2', code: 'CC6.2', name: 'User registration' },
      ],
      entities: ['payments'],
      nextAuditDate: Date.UTC(2026, 5, 1),
      tscSelections: ['Security'],
      addedBy: 'ada',
      addedOn: Date.UTC(2025, 0, 1),
    },
    { key: 'iso', name: 'ISO 27001', requirements: [{ key: 'A.5.1', code: 'A.5.1', name: 'Policies' }] },
  ],
});

for (const dialect of dialects) {
  describe(`program documents: frameworks (${dialect})`, () => {
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

    test('apply creates the frameworks GET /v1/frameworks shows, with every field', async () => {
      const plan = await verbs.apply(doc());
      assert.equal(plan.changed, true);
      assert.deepEqual(plan.counts.frameworks, { created: 2, updated: 0, deleted: 0, unchanged: 0 });
      assert.deepEqual(plan.counts.people, { created: 1, updated: 0, deleted: 0, unchanged: 0 });
      const res = await api(server.url, '/v1/frameworks?fields=addedBy,addedOn,lastModifiedBy,modifiedOn,tscSelections', token);
      assert.equal(res.status, 200);
      const soc2 = res.body.data.find((f: any) => f.frameworkName === 'SOC 2');
      const soc2Id = plan.changes.find((c) => c.key === 'soc2')!.id;
      assert.equal(soc2.frameworkId, soc2Id);
      assert.deepEqual(
        soc2.entities.map((e: any) => e.entityName),
        ['Payments'],
      );
      assert.equal(soc2.nextAuditDate, Date.UTC(2026, 5, 1));
      assert.deepEqual(soc2.addedBy, { name: 'Ada Lovelace', email: 'ada@example.com' });
      assert.equal(soc2.addedOn, Date.UTC(2025, 0, 1));
      assert.deepEqual(soc2.tscSelections, ['Security']);
      const iso = res.body.data.find((f: any) => f.frameworkName === 'ISO 27001');
      // left out: who applied it and when
      assert.equal(iso.addedOn, NOW);
      assert.match(iso.addedBy.email, /@credentials\.invalid$/);
    });

    test('the same document again writes no row, records no event and moves no data version', async () => {
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const plan = await verbs.apply(doc());
      assert.equal(plan.changed, false);
      assert.deepEqual(plan.changes, []);
      assert.deepEqual(plan.counts.frameworks, { created: 0, updated: 0, deleted: 0, unchanged: 2 });
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);
    });

    test('IDs are derived from the organization and the key: stable across applies, distinct across organizations', async () => {
      const other = await addCredential(server.system, (await createOrgWithCredential(server.system)).organizationId, 'read_write');
      const otherVerbs = programVerbs(
        programContext(server, other.credentialId, () => NOW),
        other.organizationId,
      );
      const mine = (await verbs.plan(doc())).counts;
      assert.equal(mine.frameworks.unchanged, 2);
      const theirs = await otherVerbs.apply(doc());
      const ours = await verbs.export();
      const theirExport = await otherVerbs.export();
      assert.deepEqual(
        theirExport.frameworks!.map((f) => f.key),
        ours.frameworks!.map((f) => f.key),
      );
      const myIds = new Set((await api(server.url, '/v1/frameworks', token)).body.data.map((f: any) => f.frameworkId));
      for (const c of theirs.changes) assert.equal(myIds.has(c.id), false);
    });

    test('a plan names the changed fields before and after, and writes nothing', async () => {
      const changed = doc();
      changed.frameworks[0].name = 'SOC 2 Type II';
      changed.frameworks[0].requirements[1].name = 'Registration and authorization';
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const plan = await verbs.plan(changed);
      assert.equal(plan.changed, true);
      assert.deepEqual(plan.counts.frameworks, { created: 0, updated: 1, deleted: 0, unchanged: 1 });
      const change = plan.changes.find((c) => c.key === 'soc2')!;
      assert.equal(change.action, 'update');
      assert.deepEqual(change.fields!.name, { before: 'SOC 2', after: 'SOC 2 Type II' });
      assert.ok(change.fields!.requirements);
      assert.deepEqual(change.fields!.modifiedOn, { before: null, after: NOW });
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);

      const applied = await verbs.apply(changed);
      assert.deepEqual(applied.changes, plan.changes);
      const after = await verbs.export();
      const soc2 = after.frameworks!.find((f) => f.key === 'soc2')!;
      assert.equal(soc2.name, 'SOC 2 Type II');
      assert.deepEqual(
        soc2.requirements.map((r) => r.name),
        ['Logical access', 'Registration and authorization'],
      );
      assert.notDeepEqual(await dataVersions(server, org), versions);
    });

    test('prune deletes the records of the kinds the document covers that it does not list, and nothing else', async () => {
      const only = { version: 1, frameworks: [doc().frameworks[1]] };
      const plan = await verbs.apply(only, true);
      assert.deepEqual(plan.counts.frameworks, { created: 0, updated: 0, deleted: 1, unchanged: 1 });
      assert.equal(plan.counts.people, undefined);
      const res = await api(server.url, '/v1/frameworks', token);
      assert.deepEqual(
        res.body.data.map((f: any) => f.frameworkName),
        ['ISO 27001'],
      );
      const exported = await verbs.export();
      assert.deepEqual(
        exported.people!.map((p) => p.key).filter((k) => k === 'ada'),
        ['ada'],
      );
    });

    test('a bad document is refused with every problem as a JSON pointer, and nothing is written', async () => {
      const rows = await rowCounts(server, org);
      const events = (await storedEvents(server.database, org)).length;
      const bad = {
        version: 1,
        frameworks: [
          { key: 'a', name: 'A', requirements: [{ key: 'r', code: 'R', name: 'R' }], colour: 'red' },
          { key: 'a', name: '', requirements: [] },
          { key: 'b', name: 'B', requirements: [], entities: ['nowhere'] },
        ],
      };
      const schemaError = await rejection(verbs.apply(bad));
      assert.equal(schemaError.code, 'validation_failed');
      const fields = schemaError.details.map((d) => d.field).sort();
      assert.deepEqual(fields, ['/frameworks/0/colour', '/frameworks/1/name']);
      delete (bad.frameworks[0] as any).colour;
      bad.frameworks[1].name = 'A again';
      const keyError = await rejection(verbs.apply(bad));
      assert.deepEqual(keyError.details, [{ field: '/frameworks/1/key', message: 'repeats the key "a" of /frameworks/0' }]);
      bad.frameworks[1].key = 'a2';
      const refError = await rejection(verbs.apply(bad));
      assert.equal(refError.details.length, 1);
      assert.equal(refError.details[0].field, '/frameworks/2/entities/0');
      assert.match(refError.details[0].message, /"nowhere", which is neither in the document nor in the organization/);
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.equal((await storedEvents(server.database, org)).length, events);
    });

    test('a reference to a requirement its framework no longer lists, or to a record prune would delete, is refused', async () => {
      await verbs.apply(doc());
      const control = {
        key: 'ctl',
        code: 'CTL-1',
        name: 'Control',
        domain: 'Access',
        functionGrouping: 'protect',
        requirements: ['soc2/CC6.2'],
        assignees: [{ person: 'ada' }],
      };
      const dropped = doc();
      dropped.frameworks[0].requirements = dropped.frameworks[0].requirements.slice(0, 1);
      const gone = await rejection(verbs.plan({ ...dropped, controls: [control] }));
      assert.deepEqual(
        gone.details.map((d) => d.field),
        ['/controls/0/requirements/0'],
      );
      const pruned = await rejection(verbs.plan({ ...doc(), people: [], controls: [control] }, true));
      assert.deepEqual(
        pruned.details.map((d) => d.field),
        ['/frameworks/0/addedBy', '/controls/0/assignees/0/person'],
      );
      assert.match(pruned.details[0].message, /prune would delete it/);
    });

    test('people may trade emails in one apply; an email another person keeps is refused', async () => {
      const two = [
        { key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' },
        { key: 'grace', name: 'Grace Hopper', email: 'grace@example.com' },
      ];
      await verbs.apply({ version: 1, people: two });
      const traded = [
        { ...two[0], email: 'grace@example.com' },
        { ...two[1], email: 'ada@example.com' },
      ];
      assert.deepEqual((await verbs.apply({ version: 1, people: traded })).counts.people, {
        created: 0,
        updated: 2,
        deleted: 0,
        unchanged: 0,
      });
      const emails = new Map((await verbs.export()).people!.map((p) => [p.key, p.email]));
      assert.equal(emails.get('ada'), 'grace@example.com');
      assert.equal(emails.get('grace'), 'ada@example.com');
      const clash = await rejection(verbs.apply({ version: 1, people: [{ key: 'alan', name: 'Alan Turing', email: 'Ada@example.com' }] }));
      assert.deepEqual(
        clash.details.map((d) => d.field),
        ['/people/0/email'],
      );
    });
  });
}
