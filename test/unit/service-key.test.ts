// The service's own keys (src/domain/service-key.ts), which the cursor MAC key and the webhook
// secrets' encryption key both are: configured, or generated once and kept in service_secrets, read
// once per process, and a failed read retried.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { cursorKey } from '../../src/domain/cursor.ts';
import { serviceKey } from '../../src/domain/service-key.ts';
import { signingSecretsKey } from '../../src/domain/webhooks/signing-secrets.ts';
import { createTestDatabase, dialects } from '../harness/engines.ts';

const now = () => 1_000;

for (const dialect of dialects) {
  describe(`service keys (${dialect})`, () => {
    test('a configured key is used as given, without touching the database', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const configured = Buffer.from('c'.repeat(32));
        assert.deepEqual(await serviceKey(database.db, 'some_key', configured, now), configured);
        const rows = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM service_secrets`.execute(database.db.kysely);
        assert.equal(Number(rows.rows[0]?.n), 0);
      } finally {
        await database.drop();
      }
    });

    test('each name has its own stored key, the same for every process on the database', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const cursor = await cursorKey(database.db, undefined, now);
        const webhook = await signingSecretsKey(database.db, undefined, now);
        assert.equal(cursor.length, 32);
        assert.equal(webhook.length, 32);
        assert.notDeepEqual(cursor, webhook, 'the cursor key is not the webhook key');
        // another process on the same data (another Db object, so nothing cached) reads the same keys
        const other = { ...database.db } as typeof database.db;
        assert.deepEqual(await cursorKey(other, undefined, now), cursor);
        assert.deepEqual(await signingSecretsKey(other, undefined, now), webhook);
      } finally {
        await database.drop();
      }
    });

    test('a process reads its key once', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const first = await serviceKey(database.db, 'some_key', undefined, now);
        await sql`DELETE FROM service_secrets`.execute(database.db.kysely);
        assert.deepEqual(await serviceKey(database.db, 'some_key', undefined, now), first, 'kept in memory, not read again');
        // a fresh process finds no row, so it makes (and keeps) a new key
        const fresh = await serviceKey({ ...database.db } as typeof database.db, 'some_key', undefined, now);
        assert.notDeepEqual(fresh, first);
      } finally {
        await database.drop();
      }
    });

    test('a failed read is not kept: the next call reads again', async () => {
      const database = await createTestDatabase(dialect);
      try {
        await sql`ALTER TABLE service_secrets RENAME TO service_secrets_away`.execute(database.db.kysely);
        await assert.rejects(serviceKey(database.db, 'some_key', undefined, now));
        await sql`ALTER TABLE service_secrets_away RENAME TO service_secrets`.execute(database.db.kysely);
        const key = await serviceKey(database.db, 'some_key', undefined, now);
        assert.equal(key.length, 32);
        const stored = await sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'some_key'`.execute(database.db.kysely);
        assert.deepEqual(Buffer.from(stored.rows[0]?.value ?? '', 'base64url'), key);
      } finally {
        await database.drop();
      }
    });
  });
}
