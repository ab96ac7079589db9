// Time moves statuses (issue 26, "Time moves it too"), through the real server with an injected
// clock, on every engine:
// - evidence uploaded in a monthly period stays `uploaded` up to the last millisecond of the month
//   and becomes `needs_attention` at the first millisecond of the next, with no request arriving;
//   its event, the control it flips and the framework's progress are on the feed, GET shows the
//   status, the reason and the service as lastModifiedBy; a new upload makes it fresh again;
// - an upload dated in a period that has already ended (backfilling history) is accepted and leaves
//   the record stale at once, unless another attachment covers the current period;
// - a published policy becomes `needs_review` when its nextReviewDate passes;
// - which statuses time moves: uploaded and pending_approval (relevant or not), and no other;
// - two schedulers on one database, racing over many organizations with small batches: every
//   record moves once, with one event each (no duplicate), and each control flips once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { readAll, storedEvents } from '../harness/events.ts';
import { eventually } from '../harness/webhooks.ts';
import { newKey } from '../harness/vulnerability-writes.ts';
import { nextDueAt, refreshStaleAt } from '../../src/storage/db/repositories/service/time-due.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import { SERVICE_STAMP } from '../../src/domain/people/actor-stamp.ts';

const MARCH_31_23H = Date.UTC(2026, 2, 31, 23);
const APRIL_1 = Date.UTC(2026, 3, 1);
const FEBRUARY_10 = Date.UTC(2026, 1, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ENV = {
  TIME_SCHEDULER: 'on',
  TIME_POLL_MS: '20',
  RATE_LIMIT_MAX: '100000',
  TOKEN_RATE_LIMIT_MAX: '100000',
};

for (const dialect of dialects) {
  describe(`time moves statuses (${dialect})`, () => {
    let clock = MARCH_31_23H;
    const now = () => clock;
    let server: TestServer;
    let blobDir: string;
    let client: Client;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-time-blobs-'));
      server = await startServer({ dialect, env: { ...ENV, BLOB_DIR: blobDir }, now });
      client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
    });
    after(async () => {
      await server?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    // Tokens expire by the same clock: a fresh one for each request.
    const get = async (p: string) => api(server.url, p, await getToken(server.url, client));
    const upload = async (evidenceId: string, evidenceDate: number) => {
      const form = new FormData();
      form.append('evidenceDate', String(evidenceDate));
      form.append('files', new Blob([new TextEncoder().encode('report\n')]), 'report.txt');
      return api(server.url, `/v1/evidence/${evidenceId}/attachments`, await getToken(server.url, client), {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: form,
      });
    };
    const statusOf = async (kind: 'evidence' | 'policies', id: string) => {
      const res = await get(`/v1/${kind}/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    };

    it('evidence goes stale exactly when its period ends, with its events and the computed ones; a new upload makes it fresh', async () => {
      const org = client.organizationId;
      const f = fixtures(server.database.db, org);
      const a = artifactFixtures(server.database.db, org);
      const framework = await f.framework('Time framework');
      const requirement = await f.requirement(framework, 'T-1');
      const control = await f.control('TIME-1', { requirementIds: [requirement] });
      const evidenceId = await a.evidence({
        name: 'Monthly access review',
        status: 'not_uploaded',
        recurrence: 'monthly',
        controlIds: [control],
        requirementIds: [requirement],
      });

      const first = await upload(evidenceId, MARCH_31_23H - 3600_000);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal((await statusOf('evidence', evidenceId)).status, 'uploaded');
      assert.equal((await get(`/v1/controls/${control}`)).body.data.status, 'compliant');
      const seqBefore = Math.max(0, ...(await storedEvents(server.database, org)).map((e) => e.seq));

      // the last millisecond of March: still current, however long the scheduler looks
      clock = APRIL_1 - 1;
      await sleep(200);
      const still = await statusOf('evidence', evidenceId);
      assert.equal(still.status, 'uploaded');
      assert.equal(still.statusReason, undefined);

      // the first millisecond of April: stale, without any request asking
      clock = APRIL_1;
      const moved = await eventually(async () => {
        const rows = await server.database.db.kysely.selectFrom('evidence').select('status').where('id', '=', evidenceId).execute();
        return rows[0].status === 'needs_attention' ? rows[0] : undefined;
      }, 10_000);
      assert.ok(moved);
      const stale = await statusOf('evidence', evidenceId);
      assert.equal(stale.status, 'needs_attention');
      assert.match(stale.statusReason, /monthly period 2026-03-01 to 2026-03-31 \(UTC\), which ended at 2026-04-01T00:00:00\.000Z/);
      assert.deepEqual(stale.lastModifiedBy, SERVICE_STAMP);
      assert.equal(stale.modifiedOn, APRIL_1);
      assert.equal((await get(`/v1/controls/${control}`)).body.data.status, 'non_compliant');

      const events = (await readAll(server, await getToken(server.url, client))).events.filter((e: any) => {
        return ['evidence.status_changed', 'control.status_changed', 'framework.progress_changed'].includes(e.type);
      });
      const stored = (await storedEvents(server.database, org)).filter((e) => e.seq > seqBefore);
      assert.deepEqual(
        stored.map((e) => e.type),
        ['evidence.status_changed', 'control.status_changed', 'framework.progress_changed'],
      );
      const onFeed = events.filter((e: any) => stored.some((s) => s.id === e.eventId));
      assert.equal(onFeed.length, 3, 'all three are on the feed');
      const [evidenceEvent, controlEvent, frameworkEvent] = onFeed;
      assert.deepEqual(evidenceEvent.data, { before: 'uploaded', after: 'needs_attention' });
      assert.equal(evidenceEvent.resourceId, evidenceId);
      assert.equal(evidenceEvent.occurredAt, APRIL_1);
      assert.deepEqual(controlEvent.data, {
        before: 'compliant',
        after: 'non_compliant',
        cause: { type: 'evidence.status_changed', resourceId: evidenceId },
      });
      assert.equal(frameworkEvent.resourceId, framework);
      assert.equal(frameworkEvent.data.before.evidence.uploaded, 1);
      assert.equal(frameworkEvent.data.after.evidence.uploaded, 0);

      // a new upload for April: fresh again, and the reason is gone
      clock = APRIL_1 + 60_000;
      const again = await upload(evidenceId, APRIL_1 + 1000);
      assert.equal(again.status, 201, JSON.stringify(again.body));
      const fresh = await statusOf('evidence', evidenceId);
      assert.equal(fresh.status, 'uploaded');
      assert.equal(fresh.statusReason, undefined);
      assert.equal((await get(`/v1/controls/${control}`)).body.data.status, 'compliant');
      // and nothing more moves it before the end of April
      await sleep(150);
      assert.equal((await statusOf('evidence', evidenceId)).status, 'uploaded');

      // a backfill (February) next to the current upload leaves it fresh: April is still covered
      const backfill = await upload(evidenceId, FEBRUARY_10);
      assert.equal(backfill.status, 201, JSON.stringify(backfill.body));
      assert.equal((await statusOf('evidence', evidenceId)).status, 'uploaded');
    });

    it('an upload dated in an ended period is accepted and leaves the record stale at once', async () => {
      clock = APRIL_1 + 3600_000;
      const a = artifactFixtures(server.database.db, client.organizationId);
      const evidenceId = await a.evidence({ name: 'Quarterly restore test', status: 'not_uploaded', recurrence: 'quarterly' });
      const res = await upload(evidenceId, FEBRUARY_10);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const got = (await get(`/v1/evidence/${evidenceId}?fields=attachments`)).body.data;
      assert.equal(got.status, 'needs_attention');
      assert.match(got.statusReason, /quarterly period 2026-01-01 to 2026-03-31/);
      assert.equal(got.attachments.length, 1);
      assert.equal(got.attachments[0].isCurrentPeriod, false);
      const events = (await storedEvents(server.database, client.organizationId)).filter((e) => e.resourceId === evidenceId);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.after]),
        [
          ['evidence.attachments_added', undefined],
          ['evidence.status_changed', 'needs_attention'],
        ],
      );
      // one_time evidence has no period: never stale
      const once = await a.evidence({ name: 'Pen test', status: 'not_uploaded', recurrence: 'one_time' });
      assert.equal((await upload(once, FEBRUARY_10)).status, 201);
      assert.equal((await statusOf('evidence', once)).status, 'uploaded');
    });

    it('a published policy becomes needs_review when its nextReviewDate passes, with its computed events', async () => {
      clock = APRIL_1 + 2 * 3600_000;
      const org = client.organizationId;
      const f = fixtures(server.database.db, org);
      const a = artifactFixtures(server.database.db, org);
      const control = await f.control('TIME-POL');
      const due = clock + 30 * 60_000;
      const policyId = await a.policy({ name: 'Access policy', status: 'published', nextReviewDate: due, controlIds: [control] });
      const draft = await a.policy({ name: 'Draft policy', status: 'draft', nextReviewDate: due - 1 });
      assert.equal((await get(`/v1/controls/${control}`)).body.data.status, 'compliant');

      clock = due - 1;
      await sleep(150);
      assert.equal((await statusOf('policies', policyId)).status, 'published');

      clock = due;
      await eventually(async () => {
        const rows = await server.database.db.kysely.selectFrom('policies').select('status').where('id', '=', policyId).execute();
        return rows[0].status === 'needs_review' ? true : undefined;
      });
      const policy = await statusOf('policies', policyId);
      assert.equal(policy.status, 'needs_review');
      assert.equal(policy.statusReason, `Review due: the next review date ${new Date(due).toISOString()} has passed.`);
      assert.deepEqual(policy.lastModifiedBy, SERVICE_STAMP);
      assert.equal((await statusOf('policies', draft)).status, 'draft', 'a draft under way is left alone');
      assert.equal((await get(`/v1/controls/${control}`)).body.data.status, 'non_compliant');
      const events = (await storedEvents(server.database, org)).filter((e) => e.occurredAt === due);
      assert.deepEqual(
        events.map((e) => [e.type, e.resourceId, e.data.before, e.data.after]),
        [
          ['policy.status_changed', policyId, 'published', 'needs_review'],
          ['control.status_changed', control, 'compliant', 'non_compliant'],
        ],
      );
    });

    it('time moves uploaded and pending_approval records, relevant or not, and leaves every other status', async () => {
      clock = Date.UTC(2026, 3, 20);
      const org = client.organizationId;
      const f = fixtures(server.database.db, org);
      const a = artifactFixtures(server.database.db, org);
      const ada = await f.person('Ada Approver', 'ada.time@example.com');
      const control = await f.control('TIME-REL');
      const withApprover = await a.evidence({ name: 'Approved monthly', status: 'not_uploaded', recurrence: 'monthly', approvers: [ada] });
      const notRelevant = await a.evidence({
        name: 'Not relevant monthly',
        status: 'not_uploaded',
        recurrence: 'monthly',
        isRelevant: false,
        notRelevantReason: 'No such system',
        controlIds: [control],
      });
      assert.equal((await upload(withApprover, clock - 1000)).status, 201);
      assert.equal((await upload(notRelevant, clock - 1000)).status, 201);
      assert.equal((await statusOf('evidence', withApprover)).status, 'pending_approval');
      // statuses a person set, with an April attachment: time leaves them
      const others: Record<string, string> = {};
      for (const status of ['needs_revision', 'draft', 'needs_review']) {
        const id = await a.evidence({ name: `Other ${status}`, status, recurrence: 'monthly' });
        await a.attachment(id, {
          displayName: 'a.txt',
          type: 'text',
          evidenceDate: clock - 1000,
          periodStart: Date.UTC(2026, 3, 1),
          periodEnd: Date.UTC(2026, 4, 1) - 1,
        });
        await refreshStaleAt(server.database.db.kysely, org, [id]);
        others[id] = status;
      }
      const seq = Math.max(0, ...(await storedEvents(server.database, org)).map((e) => e.seq));

      clock = Date.UTC(2026, 4, 1);
      await eventually(async () => {
        const rows = await server.database.db.kysely
          .selectFrom('evidence')
          .select('status')
          .where('id', 'in', [withApprover, notRelevant])
          .execute();
        return rows.every((r) => r.status === 'needs_attention') ? true : undefined;
      });
      await sleep(150);
      for (const [id, status] of Object.entries(others)) assert.equal((await statusOf('evidence', id)).status, status);
      const mine = new Set([withApprover, notRelevant, control, ...Object.keys(others)]);
      const events = (await storedEvents(server.database, org)).filter(
        (e) => e.seq > seq && (mine.has(e.resourceId) || e.data.cause?.resourceId === notRelevant),
      );
      assert.deepEqual(
        events.map((e) => [e.type, e.resourceId, e.data.before]).sort(),
        [
          ['evidence.status_changed', notRelevant, 'uploaded'],
          ['evidence.status_changed', withApprover, 'pending_approval'],
        ].sort(),
        'a record that is not relevant counts nowhere: no control event follows it',
      );
    });
    it('a stale_at left behind by a write that added a current attachment does not make the record stale', async () => {
      clock = Date.UTC(2026, 4, 10);
      const org = client.organizationId;
      const a = artifactFixtures(server.database.db, org);
      const id = await a.evidence({ name: 'Linked monthly', status: 'uploaded', recurrence: 'monthly' });
      await a.attachment(id, {
        displayName: 'may.txt',
        type: 'text',
        evidenceDate: clock - 1000,
        periodStart: Date.UTC(2026, 4, 1),
        periodEnd: Date.UTC(2026, 5, 1) - 1,
      });
      // as if the write kept the due time of an older attachment (April's)
      await server.database.db.kysely
        .updateTable('evidence')
        .set({ stale_at: Date.UTC(2026, 4, 1) })
        .where('id', '=', id)
        .execute();
      await eventually(async () => {
        const row = await server.database.db.kysely
          .selectFrom('evidence')
          .select('stale_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return Number(row.stale_at) === Date.UTC(2026, 5, 1) ? true : undefined;
      });
      assert.equal((await statusOf('evidence', id)).status, 'uploaded', 'recomputed from the attachments, not moved');
    });
  });

  describe(`a batch's computed events match the read endpoints (${dialect})`, () => {
    let clock = Date.UTC(2026, 5, 15, 12);
    const now = () => clock;
    let server: TestServer;

    before(async () => {
      server = await startServer({ dialect, env: { ...ENV, TIME_BATCH_SIZE: '5' }, now });
    });
    after(() => server?.close());

    it('many records of the demo going stale in batches: the control and framework events are the differences GET shows', async () => {
      const demo = await createDemoOrganization(server.system, { scale: 1, name: 'Time demo' });
      const org = demo.organization.id;
      const k = server.database.db.kysely;
      // whatever the demo had due already (its published policies past review) is done first
      await eventually(async () => (((await nextDueAt(k)) ?? Infinity) > clock ? true : undefined), 10_000, 'nothing due');
      const token = async () => getToken(server.url, demo.readWrite);
      const state = async () => {
        const t = await token();
        const controls = await api(server.url, '/v1/controls', t);
        const frameworks = await api(server.url, '/v1/frameworks', t);
        assert.equal(controls.status, 200);
        return {
          controls: new Map<string, string>(controls.body.data.map((c: any) => [c.controlId, c.status])),
          frameworks: new Map<string, unknown>(frameworks.body.data.map((f: any) => [f.frameworkId, f.complianceProgress])),
        };
      };
      // relevant uploaded records linked to controls: all due at one instant, moved 5 at a time
      const rows = await k
        .selectFrom('evidence as e')
        .innerJoin('control_artifacts as ca', (j) => j.onRef('ca.artifact_id', '=', 'e.id').on('ca.artifact_type', '=', 'evidence'))
        .select('e.id')
        .distinct()
        .where('e.organization_id', '=', org)
        .where('e.status', 'in', ['uploaded', 'pending_approval'])
        .where('e.recurrence', 'in', ['monthly', 'quarterly', 'semi_annually', 'yearly'])
        .execute();
      const ids = rows.map((r) => r.id);
      assert.ok(ids.length >= 6, `records to move (${ids.length})`);
      const dueAt = clock + 3600_000;
      await k
        .updateTable('attachments')
        .set({ period_end: dueAt - 1 })
        .where('evidence_id', 'in', ids)
        .execute();
      await refreshStaleAt(k, org, ids);
      const was = await state();
      const seq = Math.max(0, ...(await storedEvents(server.database, org)).map((e) => e.seq));

      clock = dueAt;
      await eventually(async () => {
        const left = await k.selectFrom('evidence').select('id').where('id', 'in', ids).where('status', '!=', 'needs_attention').execute();
        return left.length === 0 ? true : undefined;
      }, 20_000);
      const is = await state();
      const events = (await storedEvents(server.database, org)).filter((e) => e.seq > seq);
      assert.equal(events.filter((e) => e.type === 'evidence.status_changed').length, ids.length);

      // time only takes completeness away: a control flips at most once, so its first event's
      // `before` and last event's `after` are what the reads show before and after
      const span = (type: string) => {
        const m = new Map<string, { before: unknown; after: unknown }>();
        for (const e of events.filter((x) => x.type === type)) {
          const seen = m.get(e.resourceId);
          m.set(e.resourceId, { before: seen ? seen.before : e.data.before, after: e.data.after });
        }
        return [...m].map(([id, v]) => ({ id, ...v })).sort((a, b) => (a.id < b.id ? -1 : 1));
      };
      const diff = <T>(a: Map<string, T>, b: Map<string, T>) =>
        [...b]
          .filter(([id, v]) => JSON.stringify(a.get(id)) !== JSON.stringify(v))
          .map(([id, v]) => ({ id, before: a.get(id), after: v }))
          .sort((x, y) => (x.id < y.id ? -1 : 1));
      const controls = span('control.status_changed');
      assert.deepEqual(controls, diff(was.controls, is.controls), 'control events');
      assert.ok(controls.length > 0, 'some control flipped');
      assert.equal(events.filter((e) => e.type === 'control.status_changed').length, controls.length, 'each control flipped once');
      assert.deepEqual(span('framework.progress_changed'), diff(was.frameworks, is.frameworks), 'framework events');
    });
  });

  describe(`two schedulers on one database move each record once (${dialect})`, () => {
    let database: TestDatabase;
    const servers: TestServer[] = [];
    let clock = MARCH_31_23H;
    const now = () => clock;
    /** records each server's scheduler moved */
    const moved = [0, 0];

    before(async () => {
      database = await createTestDatabase(dialect);
      // small batches, so the two workers interleave many transactions over the same organizations
      for (let i = 0; i < 2; i++)
        servers.push(
          await startServer({
            database,
            env: { ...ENV, TIME_BATCH_SIZE: '7' },
            now,
            time: { onBatch: (_org, r) => (moved[i] += r.evidence) },
          }),
        );
    });
    after(async () => {
      for (const s of servers) await s.close();
      await database?.drop();
    });

    it('no duplicate event: 5 organizations × 20 records due at the same instant', async (t) => {
      const ctx = servers[0].system;
      const orgs: Array<{ org: string; control: string; evidence: string[] }> = [];
      for (let o = 0; o < 5; o++) {
        const org = (await createOrganization({ ctx, input: { name: `Race ${o}` } })).id;
        const f = fixtures(database.db, org);
        const a = artifactFixtures(database.db, org);
        const control = await f.control(`RACE-${o}`);
        const evidence: string[] = [];
        for (let i = 0; i < 20; i++) {
          const id = await a.evidence({ name: `Record ${i}`, status: 'uploaded', recurrence: 'monthly', controlIds: [control] });
          await a.attachment(id, {
            displayName: 'r.txt',
            type: 'text',
            evidenceDate: Date.UTC(2026, 2, 5),
            periodStart: Date.UTC(2026, 2, 1),
            periodEnd: APRIL_1 - 1,
          });
          evidence.push(id);
        }
        await refreshStaleAt(database.db.kysely, org, evidence);
        orgs.push({ org, control, evidence });
      }
      clock = APRIL_1;
      await eventually(
        async () => {
          const left = await database.db.kysely.selectFrom('evidence').select('id').where('status', '=', 'uploaded').execute();
          return left.length === 0 ? true : undefined;
        },
        20_000,
        'every record moved',
      );
      await sleep(200);
      t.diagnostic(`records moved by each scheduler: ${moved.join(' and ')}`);
      assert.equal(moved[0] + moved[1], 100, 'the batches reported add up to the records, none twice');
      for (const { org, control, evidence } of orgs) {
        const events = await storedEvents(database, org);
        const moved = events.filter((e) => e.type === 'evidence.status_changed');
        assert.equal(moved.length, 20, 'one event per record');
        assert.deepEqual([...new Set(moved.map((e) => e.resourceId))].sort(), [...evidence].sort());
        const flips = events.filter((e) => e.type === 'control.status_changed');
        assert.deepEqual(
          flips.map((e) => [e.resourceId, e.data.before, e.data.after]),
          [[control, 'compliant', 'non_compliant']],
          'the control flips once',
        );
      }
    });
  });
}
