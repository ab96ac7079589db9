// The liveness rules of claims and pending uploads, on every engine, at the repository level
// (docs/decisions/writes-and-uploads.md, "Abandoned claims"): what a takeover and the upload clean-up may take, decided
// by the database in one statement each.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { createOrgWithCredential, type Client } from '../harness/server.ts';
import { insertClaim, releaseInstanceClaims, takeOverClaim } from '../../src/storage/db/repositories/service/idempotency.ts';
import { beat, deleteInstance } from '../../src/storage/db/repositories/service/server-instances.ts';
import {
  finishPendingUpload,
  insertPendingUpload,
  takeAbandonedPendingUpload,
} from '../../src/storage/db/repositories/artifacts/uploads.ts';

const LIVENESS = 3000;
const LEASE = 150_000;

for (const dialect of dialects) {
  describe(`claim liveness in the database (${dialect})`, () => {
    let database: TestDatabase;
    let client: Client;
    before(async () => {
      database = await createTestDatabase(dialect);
      client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
    });
    after(async () => database?.drop());

    const instance = (startedAt: number) => ({ id: randomUUID(), host: 'test-host', pid: 1, startedAt });
    const claim = (key: string, instanceId: string | null, now: number) => ({
      credentialId: client.credentialId,
      organizationId: client.organizationId,
      key,
      fingerprint: '',
      owner: randomUUID(),
      instanceId,
      now,
      leaseUntil: now + LEASE,
      aliveSince: now - LIVENESS,
    });

    it('a claim is taken over only once its instance is silent past the window, gone, or past the lease', async () => {
      const t0 = 1_000_000_000_000;
      const live = instance(t0);
      await beat(database.db.kysely, live, t0);
      assert.ok(await insertClaim(database.db.kysely, claim('k-live', live.id, t0)));
      // Within the window the claim stays its owner's, however long the request runs.
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-live', null, t0 + LIVENESS - 1)), false);
      await beat(database.db.kysely, live, t0 + 60_000);
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-live', null, t0 + 60_000 + LIVENESS)), false, 'still beating');
      // Silent past the window: abandoned.
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-live', null, t0 + 60_000 + LIVENESS + 1)), true);

      // An instance without a row (it exited, or was removed as long gone) holds nothing.
      const gone = instance(t0);
      assert.ok(await insertClaim(database.db.kysely, claim('k-gone', gone.id, t0)));
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-gone', null, t0 + 1)), true);

      // A claim without an instance (written by the previous version) keeps the lease alone.
      assert.ok(await insertClaim(database.db.kysely, claim('k-legacy', null, t0)));
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-legacy', null, t0 + LEASE - 1)), false);
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-legacy', null, t0 + LEASE)), true);

      // Past the lease even a live instance's claim goes (a stuck request).
      const stuck = instance(t0);
      await beat(database.db.kysely, stuck, t0 + LEASE);
      assert.ok(await insertClaim(database.db.kysely, claim('k-stuck', stuck.id, t0)));
      assert.equal(await takeOverClaim(database.db.kysely, claim('k-stuck', null, t0 + LEASE)), true);
    });

    it('shutdown releases exactly the in-progress claims of its instance', async () => {
      const now = Date.now();
      const mine = instance(now);
      const other = instance(now);
      await beat(database.db.kysely, mine, now);
      await beat(database.db.kysely, other, now);
      await insertClaim(database.db.kysely, claim('r-1', mine.id, now));
      await insertClaim(database.db.kysely, claim('r-2', mine.id, now));
      await insertClaim(database.db.kysely, claim('r-other', other.id, now));
      assert.equal(await releaseInstanceClaims(database.db.kysely, mine.id), 2);
      const left = await database.db.kysely
        .selectFrom('idempotency_records')
        .select('idempotency_key')
        .where('idempotency_key', 'like', 'r-%')
        .execute();
      assert.deepEqual(
        left.map((r) => r.idempotency_key),
        ['r-other'],
      );
      await deleteInstance(database.db.kysely, other.id);
    });

    it('the clean-up takes only uploads whose instance is gone, and a taken upload can no longer be recorded', async () => {
      const now = Date.now();
      const live = instance(now);
      const dead = instance(now - 60_000);
      await beat(database.db.kysely, live, now);
      await beat(database.db.kysely, dead, now - 60_000);
      const evidenceId = 'ev-liveness';
      const upload = (instanceId: string) => ({
        id: randomUUID(),
        organizationId: client.organizationId,
        evidenceId,
        blobPrefix: `uploads/${client.organizationId}/${randomUUID()}/`,
        createdAt: now,
        expiresAt: now + LEASE,
        instanceId,
      });
      const liveUpload = upload(live.id);
      const deadUpload = upload(dead.id);
      await insertPendingUpload(database.db.kysely, liveUpload);
      await insertPendingUpload(database.db.kysely, deadUpload);
      const at = { now, aliveSince: now - LIVENESS };

      assert.equal(await takeAbandonedPendingUpload(database.db.kysely, liveUpload.id, at), false, 'a live upload is left alone');
      assert.equal(await takeAbandonedPendingUpload(database.db.kysely, deadUpload.id, at), true);
      assert.equal(await finishPendingUpload(database.db.kysely, deadUpload.id), false, 'a taken upload is not recorded');
      assert.equal(await finishPendingUpload(database.db.kysely, liveUpload.id), true);
      assert.equal(await takeAbandonedPendingUpload(database.db.kysely, liveUpload.id, { now: now + LEASE, aliveSince: now }), false);
    });
  });
}
