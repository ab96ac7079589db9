// A job whose every run stopped the node under it (a file that kills a node would kill them all in
// turn) is not run again after JOB_MAX_ATTEMPTS: a running server's worker ends it as failed, and
// GET /v1/jobs/{id} says why (docs/decisions/program-writes.md, "Jobs"). Both engines.
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { addCredential, api, getToken, startServer, type TestServer } from '../harness/server.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';

for (const dialect of dialects) {
  describe(`a job is run at most JOB_MAX_ATTEMPTS times (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let organizationId: string;
    let credentialId: string;
    before(async () => {
      server = await startServer({ dialect, env: { JOB_POLL_MS: '50', JOB_MAX_ATTEMPTS: '2' } });
      organizationId = (await createOrganization({ ctx: server.system, input: { name: 'Crashing imports' } })).id;
      const client = await addCredential(server.system, organizationId, 'read_write');
      credentialId = client.credentialId;
      token = await getToken(server.url, client);
    });
    after(async () => server?.close());

    /** A job some node claimed `attempts` times, whose last lease ran out a second ago. */
    async function abandonedJob(id: string, attempts: number) {
      const now = Date.now();
      await server.database.db.kysely
        .insertInto('jobs')
        .values({
          id,
          organization_id: organizationId,
          kind: 'vulnerabilities.import',
          status: 'running',
          input: JSON.stringify({ spool: 'spools/none' }),
          result: null,
          error: null,
          credential_id: credentialId,
          created_at: now - 60_000,
          started_at: now - 30_000,
          lease_owner: 'a-node-that-died',
          lease_until: now - 1000,
          attempts,
        })
        .execute();
    }

    async function settled(id: string) {
      for (let i = 0; i < 100; i++) {
        const answer = await api(server.url, `/v1/jobs/${id}`, token);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const job = answer.body.data;
        if (job.status === 'succeeded' || job.status === 'failed') return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail(`job ${id} did not end`);
    }

    test('a job whose last allowed run lost its lease ends as failed, saying it was not tried again', async () => {
      const id = `job_${randomUUID()}`;
      await abandonedJob(id, 2);
      const job = await settled(id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error.code, 'internal_error');
      assert.match(job.error.message, /started 2 times .* not tried again/);
      assert.equal(job.result, undefined);
      assert.notEqual(job.finishedAt, null);
    });

    test('a job with a run left is run again by the worker (and ends by its own outcome)', async () => {
      const id = `job_${randomUUID()}`;
      await abandonedJob(id, 1);
      const job = await settled(id);
      // its spool (made up here) is missing, so the run itself fails, but by its own outcome, not as abandoned
      assert.doesNotMatch(JSON.stringify(job.error ?? {}), /not tried again/);
      const row = await server.database.db.kysely.selectFrom('jobs').select('attempts').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(Number(row.attempts), 2);
    });
  });
}

describe('an idle job worker writes nothing (sqlite)', () => {
  test('polling for jobs every 20 ms leaves the change stamp alone, so cached grants and warm answers stay proved', async () => {
    const server = await startServer({ dialect: 'sqlite', env: { JOB_POLL_MS: '20' } });
    try {
      await new Promise((r) => setTimeout(r, 200)); // the worker's first looks
      const stamp = server.system.db.changeStamp?.();
      assert.notEqual(stamp, undefined);
      await new Promise((r) => setTimeout(r, 400)); // some twenty more
      assert.equal(server.system.db.changeStamp?.(), stamp);
    } finally {
      await server.close();
    }
  });
});
