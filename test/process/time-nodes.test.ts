// The time scheduler across nodes (issue 26): two real server processes (src/main.ts) on one
// PostgreSQL database, each running its scheduler with the default settings and the real clock.
// - policies whose review falls due in a few seconds, with no request arriving: each one moves
//   once, at its due time (within a second), with one event each and one control flip;
// - a node SIGKILLed while it holds an organization's claim (in the middle of the transaction
//   that moves 3,000 stale records): its transaction is rolled back with its connection, the other
//   node does the whole batch within seconds, and every record has exactly one event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';
import type { BaseContext } from '../../src/domain/context.ts';
import { eventually } from '../harness/webhooks.ts';
import { storedEvents } from '../harness/events.ts';
import { fixtures } from '../harness/fixtures.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { countStatus, seedStaleEvidence } from '../harness/time-due.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process among `pids` that owns the local TCP port `port` (a node's database connection), read from /proc (Linux). */
function pidOfLocalPort(port: number, pids: number[]): number | undefined {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && Number.parseInt(cols[1].split(':')[1], 16) === port) inodes.add(cols[9]);
    }
  }
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

for (const dialect of dialects) {
  if (dialect !== 'postgres') continue;
  describe('the time scheduler on two nodes of one PostgreSQL', () => {
    let database: TestDatabase;
    let ctx: BaseContext;
    const nodes: ServerProcess[] = [];

    const startNode = async (env: Record<string, string> = {}) => {
      const node = await startServerProcess({
        database,
        store: createTestStore('memory'),
        env: { RATE_LIMIT_MAX: '100000', TIME_SCHEDULER: 'on', ...env },
      });
      nodes.push(node);
      return node;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      ctx = { db: database.db, region: 'us', now: Date.now };
      await startNode();
      await startNode();
    });
    after(async () => {
      await Promise.all(nodes.map((n) => n.kill()));
      await database?.drop();
    });

    it('policies falling due with no request arriving: each moves once, at its due time', async (t) => {
      const org = (await createOrganization({ ctx, input: { name: 'Reviews due' } })).id;
      const f = fixtures(database.db, org);
      const a = artifactFixtures(database.db, org);
      const control = await f.control('REVIEW-1');
      const dueAt = Date.now() + 3000;
      const ids: string[] = [];
      for (let i = 0; i < 40; i++)
        ids.push(
          await a.policy({ name: `Policy ${i}`, status: 'published', nextReviewDate: dueAt + (i % 4) * 250, controlIds: [control] }),
        );

      const rows = await eventually(
        async () => {
          const r = await database.db.kysely
            .selectFrom('policies')
            .select(['id', 'status', 'modified_on', 'next_review_date'])
            .where('organization_id', '=', org)
            .execute();
          return r.every((p) => p.status === 'needs_review') ? r : undefined;
        },
        20_000,
        'every policy needs review',
      );
      const lags = rows.map((r) => Number(r.modified_on) - Number(r.next_review_date));
      t.diagnostic(`moved ${Math.min(...lags)}-${Math.max(...lags)} ms after their due times`);
      assert.ok(Math.min(...lags) >= 0, 'never before its due time');
      assert.ok(Math.max(...lags) < 1500, `at its due time (lags ${lags.join(',')})`);
      await sleep(500);
      const events = await storedEvents(database, org);
      const moved = events.filter((e) => e.type === 'policy.status_changed');
      assert.equal(moved.length, ids.length, 'one event per policy, no duplicate');
      assert.deepEqual(new Set(moved.map((e) => e.resourceId)), new Set(ids));
      assert.deepEqual(
        events.filter((e) => e.type === 'control.status_changed').map((e) => [e.resourceId, e.data.before, e.data.after]),
        [[control, 'compliant', 'non_compliant']],
      );
    });

    it('a node killed while holding the claim: the other node does the work within seconds, each record once', async (t) => {
      const N = 3000;
      const org = (await createOrganization({ ctx, input: { name: 'Killed mid-batch' } })).id;
      const dueAt = Date.now() + 4000;
      const { evidenceIds } = await seedStaleEvidence(database.db, org, { count: N, dueAt });
      assert.equal((await countStatus(database.db, org, 'uploaded')).n, N);

      // Find the node in the middle of the organization's transaction: the PostgreSQL session that
      // has written (an xid) and stayed in its transaction for a while, and the process owning its port.
      let holder: ServerProcess | undefined;
      const deadline = dueAt + 10_000;
      while (!holder && Date.now() < deadline) {
        const sessions = await sql<{ client_port: number }>`select client_port from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null
            and xact_start < now() - interval '40 milliseconds'`.execute(database.db.kysely);
        for (const s of sessions.rows) {
          const pid = pidOfLocalPort(
            Number(s.client_port),
            nodes.filter((n) => n.child.exitCode === null).map((n) => n.child.pid!),
          );
          holder = nodes.find((n) => n.child.pid === pid && n.child.exitCode === null);
          if (holder) break;
        }
        if (!holder) await sleep(5);
      }
      assert.ok(holder, 'a node was caught holding the claim');
      const doneBeforeKill = (await countStatus(database.db, org, 'needs_attention')).n;
      const killedAt = Date.now();
      await holder.kill();
      const survivor = nodes.find((n) => n !== holder && n.child.exitCode === null);
      assert.ok(survivor, 'the other node still runs');

      const done = await eventually(
        async () => {
          const c = await countStatus(database.db, org, 'needs_attention');
          return c.n === N ? c : undefined;
        },
        30_000,
        'every record stale',
      );
      const tookOver = done.lastModifiedOn - killedAt;
      t.diagnostic(`${doneBeforeKill} of ${N} done when the holder was killed; the other node finished ${tookOver} ms after the kill`);
      assert.ok(doneBeforeKill < N, 'the killed transaction had not committed');
      assert.ok(tookOver < 10_000, `within seconds (${tookOver} ms)`);
      const events = (await storedEvents(database, org)).filter((e) => e.type === 'evidence.status_changed');
      assert.equal(events.length, N, 'one event per record: the killed batch left nothing, nothing was done twice');
      assert.equal(new Set(events.map((e) => e.resourceId)).size, N);
      assert.deepEqual(new Set(events.map((e) => e.resourceId)), new Set(evidenceIds));
    });
  });
}
