// Program documents, evidence end to end (issue 25): an apply creates evidence records that
// GET /v1/evidence/{id} shows with every field and expansion; a re-apply writes nothing; a change
// records the events a move records (evidence.status_changed, evidence.updated); hosted files are
// never touched nor exported, and a prune keeps their record; bad input names JSON pointers.
// On every engine.
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
  entities: [
    { key: 'payments', name: 'Payments' },
    { key: 'core', name: 'Core' },
  ],
  people: [
    { key: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' },
    { key: 'bob', name: 'Bob Noyce', email: 'bob@example.com' },
  ],
  frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [{ key: 'CC6.1', code: 'CC6.1', name: 'Logical access' }] }],
  evidence: [
    {
      key: 'access-review',
      name: 'Quarterly access review',
      status: 'uploaded' as string,
      department: 'Security',
      nextReviewDate: NOW + 30 * DAY,
      gapStatus: 'gaps_detected',
      gaps: ['Missing sign-off'],
      recurrence: 'quarterly',
      effortEstimate: 'medium',
      source: 'template',
      evidenceCollectionMethod: 'manual',
      requirementText: 'Provide the latest review.',
      revisionRequestedBy: 'bob',
      revisionRequestedOn: NOW - 2 * DAY,
      rejectionReason: 'Unsigned',
      assignees: [{ person: 'ada', isPrimary: true }, { person: 'bob' }],
      approvers: ['bob'],
      entities: ['payments', 'core'],
      requirements: ['soc2/CC6.1'],
      tickets: [{ ticketId: 'SEC-1', source: 'jira', url: 'https://jira.example.com/browse/SEC-1' }],
      attachments: [
        { displayName: 'Review sheet', url: 'https://drive.example.com/review', evidenceDate: NOW - 10 * DAY, note: 'Signed' },
        {
          displayName: 'Older sheet',
          url: 'https://drive.example.com/older',
          evidenceDate: NOW - 100 * DAY,
          addedBy: 'bob',
          addedOn: NOW - 99 * DAY,
        },
      ],
      addedBy: 'ada',
      addedOn: NOW - 400 * DAY,
    },
    { key: 'backups', name: 'Backup restore test', isRelevant: false, notRelevantReason: 'No backups kept' },
  ],
});

for (const dialect of dialects) {
  describe(`program documents: evidence (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let org: string;
    let verbs: ReturnType<typeof programVerbs>;
    let reviewId: string;

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

    test('apply creates evidence that GET shows with every field and expansion', async () => {
      const plan = await verbs.apply(doc());
      assert.deepEqual(plan.counts.evidence, { created: 2, updated: 0, deleted: 0, unchanged: 0 });
      reviewId = plan.changes.find((c) => c.key === 'access-review')!.id;
      const res = await api(server.url, `/v1/evidence/${reviewId}?fields=mappedTests,gaps,attachments,tickets`, token);
      assert.equal(res.status, 200);
      const e = res.body.data;
      assert.equal(e.evidenceName, 'Quarterly access review');
      assert.equal(e.status, 'uploaded');
      assert.equal(e.department, 'Security');
      assert.deepEqual(e.assignees, [
        { name: 'Ada Lovelace', email: 'ada@example.com', isPrimary: true },
        { name: 'Bob Noyce', email: 'bob@example.com', isPrimary: false },
      ]);
      assert.deepEqual(e.approvers, [{ name: 'Bob Noyce', email: 'bob@example.com' }]);
      assert.deepEqual(
        e.entities.map((x: any) => x.entityName),
        ['Core', 'Payments'],
      );
      assert.equal(e.gapStatus, 'gaps_detected');
      assert.deepEqual(e.gaps, ['Missing sign-off']);
      assert.equal(e.gapCount, 1);
      assert.deepEqual(
        e.mappedRequirements.map((r: any) => r.requirementCode),
        ['CC6.1'],
      );
      assert.deepEqual(
        e.mappedFrameworks.map((f: any) => f.frameworkName),
        ['SOC 2'],
      );
      assert.equal(e.evidenceRequirementText, 'Provide the latest review.');
      assert.deepEqual(e.revisionRequestedBy, { name: 'Bob Noyce', email: 'bob@example.com' });
      assert.equal(e.rejectionReason, 'Unsigned');
      assert.deepEqual(e.addedBy, { name: 'Ada Lovelace', email: 'ada@example.com' });
      assert.equal(e.addedOn, NOW - 400 * DAY);
      assert.equal(e.modifiedOn, null);
      assert.deepEqual(e.tickets, [{ ticketId: 'SEC-1', source: 'jira', url: 'https://jira.example.com/browse/SEC-1' }]);
      assert.equal(e.attachments.length, 2);
      const [latest, older] = e.attachments;
      assert.equal(latest.displayName, 'Review sheet');
      assert.equal(latest.url, 'https://drive.example.com/review');
      assert.equal(latest.type, 'link');
      assert.equal(latest.note, 'Signed');
      assert.equal(latest.addedOn, NOW);
      assert.match(latest.addedBy.email, /@credentials\.invalid$/);
      // the period the recurrence gives the date: the quarter holding it
      assert.equal(latest.periodStart, Date.UTC(2026, 0, 1));
      assert.equal(latest.periodEnd, Date.UTC(2026, 3, 1) - 1);
      assert.equal(latest.isCurrentPeriod, true);
      assert.deepEqual(older.addedBy, { name: 'Bob Noyce', email: 'bob@example.com' });
      const list = await api(server.url, '/v1/evidence?fields=evidenceCollectionMethod,effortEstimate,source,recurrence', token);
      const item = list.body.data.find((x: any) => x.evidenceId === reviewId);
      assert.equal(item.evidenceCollectionMethod, 'manual');
      const backups = list.body.data.find((x: any) => x.evidenceName === 'Backup restore test');
      assert.equal(backups.isRelevant, false);
      assert.equal(backups.status, 'not_uploaded');
    });

    test('the same document again writes no row, records no event and moves no data version', async () => {
      const rows = await rowCounts(server, org);
      const versions = await dataVersions(server, org);
      const events = (await storedEvents(server.database, org)).length;
      const plan = await verbs.apply(doc());
      assert.equal(plan.changed, false);
      assert.deepEqual(plan.counts.evidence, { created: 0, updated: 0, deleted: 0, unchanged: 2 });
      assert.deepEqual(await rowCounts(server, org), rows);
      assert.deepEqual(await dataVersions(server, org), versions);
      assert.equal((await storedEvents(server.database, org)).length, events);
      // and the export applied again is no change either
      assert.equal((await verbs.plan(await verbs.export())).changed, false);
    });

    test('a change records the events a move records: status_changed and updated with the GET fields', async () => {
      const changed = doc();
      changed.evidence[0].status = 'needs_attention';
      changed.evidence[0].tickets = [];
      const seen = (await storedEvents(server.database, org)).length;
      const plan = await verbs.plan(changed);
      const change = plan.changes.find((c) => c.key === 'access-review')!;
      assert.deepEqual(change.fields!.status, { before: 'uploaded', after: 'needs_attention' });
      assert.ok(change.fields!.tickets);
      await verbs.apply(changed);
      const events = (await storedEvents(server.database, org)).slice(seen);
      const status = events.find((e) => e.type === 'evidence.status_changed')!;
      assert.equal(status.resourceId, reviewId);
      assert.deepEqual(status.data, { before: 'uploaded', after: 'needs_attention' });
      const updated = events.find((e) => e.type === 'evidence.updated')!;
      assert.deepEqual(Object.keys((updated.data as any).changes).sort(), ['lastModifiedBy', 'modifiedOn', 'tickets']);
      assert.deepEqual((updated.data as any).changes.modifiedOn, { before: null, after: NOW });
      const res = await api(server.url, `/v1/evidence/${reviewId}?fields=tickets`, token);
      assert.deepEqual(res.body.data.tickets, []);
      assert.equal(res.body.data.status, 'needs_attention');
    });

    test('a status change alone records evidence.status_changed and no evidence.updated, as a move does', async () => {
      const moved = doc();
      moved.evidence[0].status = 'draft';
      moved.evidence[0].tickets = [];
      const seen = (await storedEvents(server.database, org)).length;
      await verbs.apply(moved);
      const events = (await storedEvents(server.database, org)).slice(seen).filter((e) => e.type.startsWith('evidence.'));
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [['evidence.status_changed', { before: 'needs_attention', after: 'draft' }]],
      );
    });

    test('hosted files are never exported, changed or removed; prune keeps their record', async () => {
      // a file the service hosts, recorded as an upload records it
      await server.database.db.kysely
        .insertInto('attachments')
        .values({
          id: 'hosted-1',
          organization_id: org,
          evidence_id: reviewId,
          display_name: 'scan.png',
          type: 'image',
          url: null,
          note: null,
          blob_key: 'uploads/x/0',
          size_bytes: 10,
          sha256: 'ab',
          upload_id: 'u',
          evidence_date: NOW - DAY,
          period_start: null,
          period_end: null,
          added_by: null,
          added_on: NOW - DAY,
          updated_by: null,
          updated_on: null,
        })
        .execute();
      const exported = await verbs.export();
      const review = exported.evidence!.find((e) => e.key === 'access-review')!;
      assert.deepEqual(
        review.attachments!.map((a) => a.displayName),
        ['Review sheet', 'Older sheet'],
      );
      // the links replaced by a document: the hosted file stays
      const changed = doc();
      changed.evidence[0].attachments = [
        { displayName: 'New sheet', url: 'https://drive.example.com/new', evidenceDate: NOW - 5 * DAY, note: 'x' },
      ];
      await verbs.apply(changed);
      const res = await api(server.url, `/v1/evidence/${reviewId}?fields=attachments`, token);
      assert.deepEqual(
        res.body.data.attachments.map((a: any) => a.displayName),
        ['scan.png', 'New sheet'],
      );
      // prune of every evidence record: the one holding a hosted file stays
      const plan = await verbs.apply({ version: 1, evidence: [] }, true);
      assert.deepEqual(plan.counts.evidence, { created: 0, updated: 0, deleted: 1, unchanged: 0 });
      const list = await api(server.url, '/v1/evidence', token);
      assert.deepEqual(
        list.body.data.map((e: any) => e.evidenceId),
        [reviewId],
      );
    });

    test('bad input is refused with JSON pointers, and nothing is written', async () => {
      const rows = await rowCounts(server, org);
      const bad = doc();
      (bad.evidence[0] as any).colour = 'red';
      (bad.evidence[0] as any).status = 'lost';
      (bad.evidence[0].attachments![0] as any).url = 'ftp://example.com/x';
      const schema = await rejection(verbs.apply(bad));
      assert.equal(schema.code, 'validation_failed');
      assert.deepEqual(schema.details.map((d) => d.field).sort(), [
        '/evidence/0/attachments/0/url',
        '/evidence/0/colour',
        '/evidence/0/status',
      ]);
      const refs = doc();
      refs.evidence[0].assignees = [{ person: 'nobody' }, { person: 'nobody' }];
      refs.evidence[0].requirements = ['soc2/CC9.9'];
      const refError = await rejection(verbs.apply(refs));
      assert.deepEqual(refError.details.map((d) => d.field).sort(), ['/evidence/0/assignees/1/person']);
      refs.evidence[0].assignees = [{ person: 'nobody' }];
      const refError2 = await rejection(verbs.apply(refs));
      assert.deepEqual(refError2.details.map((d) => d.field).sort(), ['/evidence/0/assignees/0/person', '/evidence/0/requirements/0']);
      assert.deepEqual(await rowCounts(server, org), rows);
    });
  });
}
