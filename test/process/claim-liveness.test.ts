// A claim on an Idempotency-Key lives only as long as the server process holding it (issue 16;
// docs/decisions/writes-and-uploads.md, "Abandoned claims"), with the default lease settings, on every engine:
// - a node SIGKILLed in the middle of an upload: the same upload with the same key is accepted by
//   another node within 5 s, and the dead upload's partial blobs are removed within seconds;
// - creates cut off by SIGKILL: after a restart each is accepted with its key (on SQLite on the
//   first retry, since start-up releases the claims of the dead process), and written once;
// - a slow but live claimant keeps its key past the liveness window: retries answer 409 until it
//   finishes, then replay its result, so nothing is written twice;
// - SIGTERM: a request that finishes within the grace period is answered; one that cannot has its
//   claim released before the process exits, so a retry on another node proceeds at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { api, createOrgWithCredential, getToken, type Client } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { date, walkDir, file, MiB, multipartType, payload, rawBody } from '../harness/uploads.ts';
import { holdUpload } from '../harness/held-upload.ts';

const BOUNDARY = 'liveness-boundary';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of dialects) {
  describe(`a claim lives only as long as its process (${dialect})`, () => {
    let database: TestDatabase;
    let blobDir: string;
    let client: Client;
    let token: string;
    const nodes: ServerProcess[] = [];

    /** A node on the shared database and blob directory, with the default lease and liveness settings. */
    async function startNode(env: Record<string, string> = {}): Promise<ServerProcess> {
      const node = await startServerProcess({
        database,
        store: createTestStore('memory'),
        env: { BLOB_DIR: blobDir, RATE_LIMIT_MAX: '100000', ...env },
      });
      nodes.push(node);
      return node;
    }

    before(async () => {
      database = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-liveness-blobs-'));
      client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
    });
    after(async () => {
      await Promise.all(nodes.map((n) => n.kill()));
      await database?.drop();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const evidence = (name: string) => artifactFixtures(database.db, client.organizationId).evidence({ name, status: 'not_uploaded' });
    const uploadBody = (seed: number) => rawBody([date(Date.now() - 60_000), file(`scan-${seed}.log`, payload(4 * MiB, seed))], BOUNDARY);
    const uploadPath = (evidenceId: string) => `/v1/evidence/${encodeURIComponent(evidenceId)}/attachments`;
    const postUpload = (url: string, evidenceId: string, key: string, body: Buffer) =>
      api(url, uploadPath(evidenceId), token, {
        method: 'POST',
        headers: { 'idempotency-key': key, 'content-type': multipartType(BOUNDARY) },
        body: new Uint8Array(body),
      });
    const hold = (url: string, evidenceId: string, key: string, body: Buffer) =>
      holdUpload({
        url,
        path: uploadPath(evidenceId),
        token,
        key,
        body,
        contentType: multipartType(BOUNDARY),
        sentBytes: body.length >> 1,
      });

    const claimOf = (key: string) =>
      database.db.kysely
        .selectFrom('idempotency_records')
        .select(['state'])
        .where('credential_id', '=', client.credentialId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    async function waitForClaim(key: string) {
      const deadline = Date.now() + 10_000;
      while ((await claimOf(key))?.state !== 'in_progress') {
        assert.ok(Date.now() < deadline, `the upload with key ${key} never claimed it`);
        await sleep(20);
      }
    }
    const attachmentKeys = async (evidenceId: string) =>
      (
        await database.db.kysely
          .selectFrom('attachments')
          .select('blob_key')
          .where('organization_id', '=', client.organizationId)
          .where('evidence_id', '=', evidenceId)
          .execute()
      ).map((r) => r.blob_key);
    /** Files in the blob directory that no attachment records (partial files of unfinished uploads, temporary ones included). */
    async function unrecordedBlobs(): Promise<string[]> {
      const recorded = new Set(
        (await database.db.kysely.selectFrom('attachments').select('blob_key').where('blob_key', 'is not', null).execute()).map(
          (r) => r.blob_key,
        ),
      );
      const { entries, tmp } = walkDir(blobDir);
      return [...entries.filter((e) => !e.startsWith('dir:') && !recorded.has(e)), ...tmp];
    }

    /** Retries `attempt` every 200 ms until it answers 201, at most until `deadline`; the answers seen. */
    async function retryUntilCreated(attempt: () => Promise<Awaited<ReturnType<typeof api>>>, deadline: number) {
      const seen: string[] = [];
      for (;;) {
        const res = await attempt();
        seen.push(`${res.status} ${res.body?.error?.code ?? ''}`.trim());
        if (res.status === 201) return { res, seen };
        assert.ok(Date.now() < deadline, `no 201 in time; answers: ${seen.join(', ')}`);
        await sleep(200);
      }
    }

    it('an upload cut off by SIGKILL is accepted with its key on another node within 5 s, and its partial blobs are removed', async () => {
      const [a, b] = await Promise.all([startNode(), startNode()]);
      token = await getToken(b.url, client);
      const evidenceId = await evidence('Killed upload');
      const key = `killed-upload-${Date.now()}`;
      const body = uploadBody(1);

      const held = hold(a.url, evidenceId, key, body);
      await waitForClaim(key);
      // Part of the file is on disk when the node dies.
      const deadlineWrite = Date.now() + 5000;
      while (walkDir(blobDir).tmp.length === 0 && Date.now() < deadlineWrite) await sleep(20);
      assert.equal(walkDir(blobDir).tmp.length, 1, 'the file being uploaded is on disk');
      await a.kill();
      const diedAt = Date.now();
      assert.ok((await held.answer) instanceof Error, 'the killed node never answered');

      const { res, seen } = await retryUntilCreated(() => postUpload(b.url, evidenceId, key, body), diedAt + 5000);
      const acceptedAfterMs = Date.now() - diedAt;
      assert.equal(res.headers.get('idempotent-replayed'), null, 'the retry is the write itself');
      assert.equal((await attachmentKeys(evidenceId)).length, 1, 'the upload is recorded once');
      console.log(`# ${dialect}: retry accepted ${acceptedAfterMs} ms after SIGKILL (answers: ${seen.join(', ')})`);

      // The dead upload is taken as abandoned within seconds (the liveness window plus the reaper's
      // interval): its journal entry and blobs go.
      const pendingUploads = () => database.db.kysely.selectFrom('pending_uploads').select('id').execute();
      const deadline = Date.now() + 10_000;
      while (((await pendingUploads()).length > 0 || (await unrecordedBlobs()).length > 0) && Date.now() < deadline) await sleep(200);
      assert.deepEqual(await pendingUploads(), [], 'the journal has no pending upload left');
      assert.deepEqual(await unrecordedBlobs(), [], 'the dead upload left no blob behind');
      console.log(`# ${dialect}: the dead upload's journal entry was removed ${Date.now() - diedAt} ms after SIGKILL`);
      await b.kill();
    });

    it('a slow upload on a live node keeps its key past the liveness window: retries answer 409, then replay its result', async () => {
      const [a, b] = await Promise.all([startNode(), startNode()]);
      token = await getToken(b.url, client);
      const evidenceId = await evidence('Slow upload');
      const key = `slow-upload-${Date.now()}`;
      const body = uploadBody(2);

      const held = hold(a.url, evidenceId, key, body);
      await waitForClaim(key);
      // Twice the default liveness window (3 s), retrying on the other node all along.
      const until = Date.now() + 6000;
      const seen: string[] = [];
      while (Date.now() < until) {
        const res = await postUpload(b.url, evidenceId, key, body);
        seen.push(`${res.status} ${res.body?.error?.code ?? ''}`);
        assert.equal(res.status, 409, `a retry while the first upload is alive: ${seen.join(', ')}`);
        assert.equal(res.body.error.code, 'idempotency_request_in_progress');
        await sleep(500);
      }
      const first = await held.finish();
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const replay = await postUpload(b.url, evidenceId, key, body);
      assert.equal(replay.status, 201, JSON.stringify(replay.body));
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);
      assert.equal((await attachmentKeys(evidenceId)).length, 1, 'written once');
      await Promise.all([a.kill(), b.kill()]);
    });

    it('creates cut off by SIGKILL are each accepted with their key after a restart, and written once', async () => {
      let node = await startNode();
      token = await getToken(node.url, client);
      const keys = Array.from({ length: 60 }, (_, i) => `killed-create-${Date.now()}-${i}`);
      const bodyOf = (i: number) => ({
        vulnerabilityId: `VUL-${9000 + i}`,
        title: `Killed create ${i}`,
        severity: 'high',
        status: 'open',
        affectedResources: [{ name: `host-${i}`, type: 'server', tags: [] }],
      });
      const post = (url: string, i: number) =>
        api(url, '/v1/vulnerabilities', token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': keys[i] },
          body: JSON.stringify(bodyOf(i)),
        }).catch((err: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: err.message } } }));
      // Eight clients send creates back to back; the node is killed in the middle of them.
      let next = 0;
      let acknowledged = 0;
      const refused: string[] = [];
      const clients = Array.from({ length: 8 }, async () => {
        while (next < keys.length) {
          const res = await post(node.url, next++);
          if (res.status === 0) return;
          if (res.status === 201) acknowledged++;
          else refused.push(`${res.status} ${JSON.stringify(res.body)}`);
        }
      });
      const sending = Promise.all(clients);
      let sent = false;
      void sending.then(() => (sent = true));
      while (acknowledged < 15 && !sent) await sleep(5);
      assert.deepEqual(refused, [], 'creates before the kill are accepted');
      assert.ok(!sent, 'the node is killed while creates are still being sent');
      await node.kill();
      const diedAt = Date.now();
      await sending;

      node = await startNode();
      const restartedAt = Date.now();
      // SQLite: the restarted process released the dead one's claims at start-up; PostgreSQL: the
      // dead process's heartbeat has stopped, so its claims go within the liveness window.
      const deadline = dialect === 'sqlite' ? restartedAt : Math.max(diedAt + 5000, restartedAt);
      const answers: string[] = [];
      for (const i of keys.keys()) {
        const { seen } = await retryUntilCreated(() => post(node.url, i), deadline);
        answers.push(...seen.filter((s) => !s.startsWith('201')));
      }
      console.log(`# ${dialect}: ${acknowledged} creates acknowledged before SIGKILL; refused retries: ${answers.join(', ') || 'none'}`);
      const rows = await database.db.kysely
        .selectFrom('vulnerabilities')
        .select(['finding_key'])
        .where('organization_id', '=', client.organizationId)
        .where('finding_key', 'like', 'VUL-9%')
        .execute();
      assert.equal(rows.length, keys.length, 'every create written');
      assert.equal(new Set(rows.map((r) => r.finding_key)).size, keys.length, 'each written once');
      await node.kill();
    });

    it('SIGTERM: a request that finishes within the grace period is answered; the claim of one that cannot is released before exit', async () => {
      const [a, b] = await Promise.all([startNode({ SHUTDOWN_GRACE_MS: '1500' }), startNode()]);
      token = await getToken(b.url, client);
      const finishing = { evidenceId: await evidence('Finishes in grace'), key: `grace-finish-${Date.now()}`, body: uploadBody(3) };
      const stuck = { evidenceId: await evidence('Never finishes'), key: `grace-stuck-${Date.now()}`, body: uploadBody(4) };
      const heldFinishing = hold(a.url, finishing.evidenceId, finishing.key, finishing.body);
      const heldStuck = hold(a.url, stuck.evidenceId, stuck.key, stuck.body);
      await waitForClaim(finishing.key);
      await waitForClaim(stuck.key);

      const signalledAt = Date.now();
      a.child.kill('SIGTERM');
      await sleep(200);
      const done = await heldFinishing.finish();
      assert.equal(done.status, 201, `the request in flight finishes during the grace period: ${JSON.stringify(done.body)}`);
      await a.exited;
      const exitMs = Date.now() - signalledAt;
      assert.ok(exitMs < 1500 + 3000, `exited ${exitMs} ms after SIGTERM`);
      assert.ok((await heldStuck.answer) instanceof Error, 'the request that could not finish was cut off, not answered');

      // The stuck request's claim was released before the exit: the retry is accepted at once.
      const retry = await postUpload(b.url, stuck.evidenceId, stuck.key, stuck.body);
      assert.equal(retry.status, 201, `first retry after the exit: ${retry.status} ${JSON.stringify(retry.body)}`);
      assert.equal((await attachmentKeys(stuck.evidenceId)).length, 1);
      assert.equal((await attachmentKeys(finishing.evidenceId)).length, 1);
      await b.kill();
    });
  });
}
