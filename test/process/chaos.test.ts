// Chaos (issue 16): two server processes (src/main.ts) on PostgreSQL and a Redis of the test's own,
// behind a failover balancer (test/harness/failover-balancer.ts), receive a workload of idempotent
// creates, patches and uploads through the project's SDK while, one after the other, a node is
// SIGKILLed and restarted, Redis is stopped and restarted, and PostgreSQL's connections of both
// nodes are terminated. Then:
// - no answer is a 500, and a 503 only comes while a dependency is down (or within 5 s of its return);
// - both nodes are ready (/readyz on the ops port, and a 2xx on the API) within 5 s of each return;
// - every write that failed completes when retried with its key within 10 s after the chaos;
// - every acknowledged write is present exactly once.
// It prints the figures of the outages: time to the first 2xx on each node after each return, and
// the 503s a client without retries saw. Skipped without TEST_DATABASE_URL and TEST_REDIS_URL
// (CI runs it), or without redis-server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { createOrgWithCredential, getToken, type Client } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { freePort, startFailoverBalancer, type FailoverBalancer } from '../harness/failover-balancer.ts';
import { redisServerAvailable, startOwnRedis, type OwnRedis } from '../harness/redis-server.ts';
import { ComplianceApiError, ComplianceClient } from '../../packages/sdk/src/index.ts';

const skip = !process.env.TEST_DATABASE_URL
  ? 'needs PostgreSQL: set TEST_DATABASE_URL (and TEST_REDIS_URL)'
  : !process.env.TEST_REDIS_URL
    ? 'needs Redis: set TEST_REDIS_URL'
    : !redisServerAvailable()
      ? 'needs redis-server (/usr/bin/redis-server, or REDIS_SERVER_PATH) to stop and restart a Redis of its own'
      : false;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long after a dependency's return the nodes may still answer 503, and must be ready again. */
const RECOVERY_MS = 5000;

interface Node {
  name: string;
  port: number;
  opsPort: number;
  proc: ServerProcess;
}

interface Write {
  kind: 'create' | 'patch' | 'upload';
  key: string;
  run: () => Promise<unknown>;
  ok: boolean;
  error?: string;
}

describe('chaos: two nodes on PostgreSQL and Redis behind a failover balancer', { skip }, () => {
  let database: TestDatabase;
  let redis: OwnRedis;
  let balancer: FailoverBalancer;
  let client: Client;
  let blobDir: string;
  const appName = `cds-chaos-${randomBytes(4).toString('hex')}`;
  const nodes: Node[] = [];
  const prefix = `cds:chaos:${randomBytes(4).toString('hex')}:`;

  async function startNode(name: string, port = 0, opsPort = 0): Promise<Node> {
    const url = new URL(database.env.DATABASE_URL);
    url.searchParams.set('application_name', appName);
    const proc = await startServerProcess({
      env: {
        DATABASE_URL: url.toString(),
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: prefix,
        BLOB_DIR: blobDir,
        RATE_LIMIT_MAX: '1000000',
        TOKEN_RATE_LIMIT_MAX: '1000',
        PORT: String(port),
        OPS_PORT: String(opsPort),
      },
    });
    return { name, port: proc.port, opsPort: Number(new URL(proc.opsUrl!).port), proc };
  }

  before(async () => {
    database = await createTestDatabase('postgres');
    redis = await startOwnRedis();
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-chaos-blobs-'));
    // Fixed ports, so a node restarts where the balancer expects it.
    for (const name of ['A', 'B']) {
      const [port, opsPort] = [await freePort(), await freePort()];
      nodes.push(await startNode(name, port, opsPort));
    }
    balancer = await startFailoverBalancer(nodes.map((n) => n.port));
    client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.proc.kill()));
    await balancer?.close();
    await redis?.stop();
    await database?.drop();
    if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it('loses nothing acknowledged, writes nothing twice, completes every failed write on retry, and recovers within 5 s', async () => {
    // ---- what every client sees ----
    const statuses: Array<{ at: number; status: number; path: string }> = [];
    const recordingFetch = async (input: string, init: RequestInit) => {
      const res = await fetch(input, init);
      statuses.push({ at: Date.now(), status: res.status, path: new URL(input).pathname });
      return res;
    };
    const sdk = new ComplianceClient({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      baseUrl: balancer.url,
      fetch: recordingFetch,
      timeoutMs: 15_000,
      retryBaseDelayMs: 200,
      retryMaxDelayMs: 2000,
    });
    const evidenceIds = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        artifactFixtures(database.db, client.organizationId).evidence({ name: `Chaos ${i}`, status: 'not_uploaded' }),
      ),
    );

    // ---- the workload: each worker creates a finding, patches it, uploads a file, again and again ----
    const writes: Write[] = [];
    let stop = false;
    let seq = 0;
    const attempt = async (w: Write) => {
      try {
        await w.run();
        w.ok = true;
        w.error = undefined;
      } catch (err) {
        w.ok = false;
        w.error = err instanceof ComplianceApiError ? `${err.status} ${err.code}` : (err as Error).name;
      }
      return w;
    };
    const worker = async (wid: number) => {
      while (!stop) {
        const n = seq++;
        const vulnerabilityId = `VUL-${String(1000 + n).padStart(4, '0')}`;
        const create: Write = {
          kind: 'create',
          key: `chaos-c-${n}`,
          ok: false,
          run: () =>
            sdk.vulnerabilities.create(
              {
                vulnerabilityId,
                title: `Chaos finding ${n}`,
                severity: 'high',
                status: 'open',
                affectedResources: [{ name: `host-${n}`, type: 'server', tags: [] }],
              },
              { idempotencyKey: `chaos-c-${n}` },
            ),
        };
        writes.push(create);
        await attempt(create);
        if (create.ok) {
          const patch: Write = {
            kind: 'patch',
            key: `chaos-p-${n}`,
            ok: false,
            run: () =>
              sdk.vulnerabilities.update(
                `api%23${vulnerabilityId}`,
                { reportLink: `https://reports.example.com/${n}` },
                { idempotencyKey: `chaos-p-${n}` },
              ),
          };
          writes.push(patch);
          await attempt(patch);
        }
        const upload: Write = {
          kind: 'upload',
          key: `chaos-u-${n}`,
          ok: false,
          run: () =>
            sdk.evidence.uploadAttachments(
              evidenceIds[wid % evidenceIds.length],
              {
                files: [{ data: new TextEncoder().encode(`chaos upload ${n}\n`.repeat(200)), filename: `chaos-${n}.log` }],
                evidenceDate: Date.now() - 60_000,
              },
              { idempotencyKey: `chaos-u-${n}` },
            ),
        };
        writes.push(upload);
        await attempt(upload);
      }
    };

    // ---- a client without retries, through the balancer, and a probe of each node ----
    const token = await getToken(balancer.url, client);
    const plain: Array<{ at: number; status: number }> = [];
    const probeBalancer = async () => {
      while (!stop) {
        const status = await fetch(`${balancer.url}/v1/frameworks`, { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => r.arrayBuffer().then(() => r.status),
          () => 0,
        );
        plain.push({ at: Date.now(), status });
        await sleep(100);
      }
    };
    /** Time from `since` until the node answers 2xx on the API and 200 on /readyz (polled every 50 ms). */
    const recovery = async (node: Node, since: number) => {
      let api: number | undefined;
      let ready: number | undefined;
      while ((api === undefined || ready === undefined) && Date.now() - since < 20_000) {
        if (api === undefined) {
          const s = await fetch(`http://127.0.0.1:${node.port}/v1/frameworks`, { headers: { authorization: `Bearer ${token}` } }).then(
            (r) => r.arrayBuffer().then(() => r.status),
            () => 0,
          );
          if (s >= 200 && s < 300) api = Date.now() - since;
        }
        if (ready === undefined) {
          const s = await fetch(`http://127.0.0.1:${node.opsPort}/readyz`).then(
            (r) => r.arrayBuffer().then(() => r.status),
            () => 0,
          );
          if (s === 200) ready = Date.now() - since;
        }
        await sleep(50);
      }
      return { node: node.name, firstApi2xxMs: api, readyMs: ready };
    };

    const running = [...Array.from({ length: 6 }, (_, i) => worker(i)), probeBalancer()];
    const outages: Record<string, { down: number; up: number; recovery: Array<Awaited<ReturnType<typeof recovery>>> }> = {};

    // ---- the chaos ----
    await sleep(3000);
    // 1. SIGKILL node A in the middle of the workload, restart it on the same ports.
    const a = nodes[0];
    const killedAt = Date.now();
    await a.proc.kill();
    await sleep(1500);
    nodes[0] = await startNode('A', a.port, a.opsPort);
    const restartedAt = Date.now();
    outages.nodeKill = { down: killedAt, up: restartedAt, recovery: [await recovery(nodes[0], restartedAt)] };
    // Each outage starts after the previous one's recovery window, so their figures stay apart.
    await sleep(RECOVERY_MS + 500);

    // 2. Redis stopped for 4 s, then started again.
    const redisDown = Date.now();
    await redis.stop();
    await sleep(4000);
    await redis.start();
    const redisUp = Date.now();
    outages.redis = { down: redisDown, up: redisUp, recovery: await Promise.all(nodes.map((n) => recovery(n, redisUp))) };
    await sleep(RECOVERY_MS + 500);

    // 3. Every PostgreSQL connection of both nodes terminated, three times over a second.
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const pgDown = Date.now();
    let terminated = 0;
    for (let i = 0; i < 3; i++) {
      const r = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [appName]);
      terminated += r.rowCount ?? 0;
      await sleep(500);
    }
    await admin.end();
    const pgUp = Date.now();
    outages.postgres = { down: pgDown, up: pgUp, recovery: await Promise.all(nodes.map((n) => recovery(n, pgUp))) };
    assert.ok(terminated > 0, 'the nodes had PostgreSQL connections to terminate');
    await sleep(RECOVERY_MS + 500);

    stop = true;
    await Promise.all(running);
    const chaosEnded = Date.now();

    // ---- every failed write completes when retried with its key within 10 s ----
    const failed = writes.filter((w) => !w.ok);
    const failures = failed.map((w) => `${w.kind} ${w.key}: ${w.error}`);
    for (const w of failed) {
      while (!(await attempt(w)).ok && Date.now() - chaosEnded < 10_000) await sleep(200);
    }
    const stillFailing = writes.filter((w) => !w.ok).map((w) => `${w.kind} ${w.key}: ${w.error}`);

    // ---- the figures (printed before the assertions, so a failing run shows them too) ----
    const count503 = (o: { down: number; up: number }) =>
      plain.filter((p) => p.status === 503 && p.at >= o.down && p.at <= o.up + RECOVERY_MS).length;
    const countFailed = (o: { down: number; up: number }) =>
      plain.filter((p) => p.status !== 200 && p.at >= o.down && p.at <= o.up + RECOVERY_MS).length;
    const creates = writes.filter((w) => w.kind === 'create');
    const uploads = writes.filter((w) => w.kind === 'upload');
    console.log(
      `# chaos: ${writes.length} writes (${creates.length} creates, ${writes.length - creates.length - uploads.length} patches, ${uploads.length} uploads); ` +
        `${failed.length} failed during the chaos (retried with their keys after it: ${stillFailing.length} still failing 10 s after the chaos); balancer resets ${balancer.resets}`,
    );
    for (const [what, o] of Object.entries(outages)) {
      console.log(
        `# chaos ${what}: down ${o.up - o.down} ms; ${o.recovery.map((r) => `node ${r.node} first 2xx ${r.firstApi2xxMs} ms, ready ${r.readyMs} ms`).join('; ')}; ` +
          `client without retries: ${count503(o)} × 503, ${countFailed(o)} non-200 of ${plain.filter((p) => p.at >= o.down && p.at <= o.up + RECOVERY_MS).length}`,
      );
    }
    console.log(`# chaos: failures during the chaos: ${failures.join('; ') || 'none'}`);
    assert.deepEqual(
      stillFailing,
      [],
      `writes that did not complete within 10 s after the chaos (failed during it: ${failures.join('; ')})`,
    );

    // ---- no 500; 503 only while a dependency was down (or recovering) ----
    const windows = [outages.redis, outages.postgres].map((o) => [o.down, o.up + RECOVERY_MS]);
    const during = (at: number) => windows.some(([from, to]) => at >= from && at <= to);
    const all = [...statuses, ...plain.map((p) => ({ ...p, path: '/v1/frameworks (no retries)' }))];
    assert.deepEqual(
      all.filter((s) => s.status === 500),
      [],
      'no 500',
    );
    const stray503 = all.filter((s) => s.status === 503 && !during(s.at));
    assert.deepEqual(stray503, [], '503 only while a dependency is down');

    // ---- both nodes ready within 5 s of each return ----
    for (const [what, o] of Object.entries(outages)) {
      for (const r of o.recovery) {
        assert.ok(r.readyMs !== undefined && r.readyMs <= RECOVERY_MS, `${what}: node ${r.node} ready in ${r.readyMs} ms`);
        assert.ok(
          r.firstApi2xxMs !== undefined && r.firstApi2xxMs <= RECOVERY_MS,
          `${what}: node ${r.node} first 2xx in ${r.firstApi2xxMs} ms`,
        );
      }
    }

    // ---- every write present exactly once ----
    const k = database.db.kysely;
    const org = client.organizationId;
    const findings = await k
      .selectFrom('vulnerabilities')
      .select(['finding_key', 'report_link'])
      .where('organization_id', '=', org)
      .execute();
    const byKey = new Map<string, number>();
    for (const f of findings) byKey.set(f.finding_key, (byKey.get(f.finding_key) ?? 0) + 1);
    assert.equal(findings.length, creates.length, 'one finding per create');
    assert.ok(
      [...byKey.values()].every((c) => c === 1),
      'no finding written twice',
    );
    for (const w of writes.filter((x) => x.kind === 'patch')) {
      const n = Number(w.key.split('-').at(-1));
      const f = findings.find((x) => x.finding_key === `VUL-${String(1000 + n).padStart(4, '0')}`);
      assert.equal(f?.report_link, `https://reports.example.com/${n}`, `patch ${w.key} present`);
    }
    const attachments = await k.selectFrom('attachments').select(['display_name']).where('organization_id', '=', org).execute();
    assert.equal(attachments.length, uploads.length, 'one attachment per upload');
    assert.equal(new Set(attachments.map((x) => x.display_name)).size, uploads.length, 'no upload recorded twice');
  });
});
