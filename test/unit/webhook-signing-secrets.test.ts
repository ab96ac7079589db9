// Endpoints' signing secrets (src/domain/webhooks/signing-secrets.ts): Standard Webhooks secrets,
// encrypted at rest, bound to their endpoint, and the live set during a rotation's overlap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  decryptSigningSecret,
  encryptSigningSecret,
  generateSigningSecret,
  liveSigningSecrets,
  MAX_SIGNING_SECRETS,
  signingSecretsKey,
} from '../../src/domain/webhooks/signing-secrets.ts';
import { expireSecrets, insertSecret } from '../../src/storage/db/repositories/events/webhook-endpoints.ts';
import { createTestDatabase, dialects } from '../harness/engines.ts';

test('a new secret is whsec_ and the base64 of 32 random bytes', () => {
  const a = generateSigningSecret();
  const b = generateSigningSecret();
  assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(a.slice('whsec_'.length), 'base64').length, 32);
  assert.notEqual(a, b);
});

test('encryption round trip; the ciphertext hides the secret and differs each time', () => {
  const key = randomBytes(32);
  const secret = generateSigningSecret();
  const c1 = encryptSigningSecret(key, 'ep-1', secret);
  const c2 = encryptSigningSecret(key, 'ep-1', secret);
  assert.notEqual(c1, c2, 'a fresh IV each time');
  assert.ok(!c1.includes(secret.slice(6, 20)));
  assert.equal(decryptSigningSecret(key, 'ep-1', c1), secret);
  assert.equal(decryptSigningSecret(key, 'ep-1', c2), secret);
});

test('a tampered ciphertext, another endpoint or another key is refused', () => {
  const key = randomBytes(32);
  const secret = generateSigningSecret();
  const sealed = encryptSigningSecret(key, 'ep-1', secret);
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  for (const index of [0, 13, 30, raw.length - 1]) {
    const flipped = Buffer.from(raw);
    flipped[index] ^= 0x01;
    assert.throws(() => decryptSigningSecret(key, 'ep-1', `v1.${flipped.toString('base64url')}`), Error, `byte ${index}`);
  }
  assert.throws(() => decryptSigningSecret(key, 'ep-2', sealed), Error, 'bound to its endpoint');
  assert.throws(() => decryptSigningSecret(randomBytes(32), 'ep-1', sealed), Error, 'another key');
  assert.throws(() => decryptSigningSecret(key, 'ep-1', `v2.${sealed.slice(3)}`), /format/);
  assert.throws(() => decryptSigningSecret(key, 'ep-1', 'v1.AAAA'), /Truncated/);
  assert.throws(() => decryptSigningSecret(key, 'ep-1', `${sealed}.x`), /format/);
});

for (const dialect of dialects) {
  describe(`live signing secrets (${dialect})`, () => {
    test('the stored key is made once and shared; a configured key is used as given', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const first = await signingSecretsKey(database.db, undefined);
        assert.equal(first.length, 32);
        // a second process on the same data (another Db object, so nothing cached) reads the same key
        const again = await signingSecretsKey({ ...database.db } as typeof database.db, undefined);
        assert.deepEqual(again, first);
        const configured = await signingSecretsKey(database.db, 'x'.repeat(32));
        assert.equal(configured.length, 32);
        assert.notDeepEqual(configured, first);
      } finally {
        await database.drop();
      }
    });

    test('current and overlapping secrets sign, newest first; expired ones do not', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const ctx = { db: database.db, region: 'us' as const, now: () => 0, webhookSecretsKey: 'k'.repeat(40) };
        const key = await signingSecretsKey(database.db, ctx.webhookSecretsKey);
        const add = async (id: string, secret: string, createdAt: number) =>
          insertSecret(database.db.kysely, {
            id,
            endpointId: 'ep-1',
            organizationId: 'org-1',
            secretCiphertext: encryptSigningSecret(key, 'ep-1', secret),
            createdAt,
            expiresAt: null,
          });
        const oldest = generateSigningSecret();
        const older = generateSigningSecret();
        const current = generateSigningSecret();
        await add('s1', oldest, 1000);
        assert.deepEqual(await liveSigningSecrets(ctx, 'ep-1', 1500), [oldest]);
        // first rotation: the oldest signs until 5000
        await expireSecrets(database.db.kysely, 'org-1', 'ep-1', 5000);
        await add('s2', older, 2000);
        assert.deepEqual(await liveSigningSecrets(ctx, 'ep-1', 2500), [older, oldest]);
        // three left live (as a version without the cap on rotations left them): only the two newest
        // sign, so a header never carries more than MAX_SIGNING_SECRETS signatures
        await expireSecrets(database.db.kysely, 'org-1', 'ep-1', 4000);
        await add('s3', current, 3000);
        assert.equal(MAX_SIGNING_SECRETS, 2);
        assert.deepEqual(await liveSigningSecrets(ctx, 'ep-1', 3500), [current, older]);
        assert.deepEqual(await liveSigningSecrets(ctx, 'ep-1', 4000), [current]);
        assert.deepEqual(await liveSigningSecrets(ctx, 'ep-2', 4000), []);
        // a ctx with another key cannot read them
        await assert.rejects(liveSigningSecrets({ ...ctx, webhookSecretsKey: 'z'.repeat(40) }, 'ep-1', 4000));
      } finally {
        await database.drop();
      }
    });
  });
}

test("the longest webhook-signature header the service sends is within the SDK's bound", async () => {
  const { MAX_SIGNATURE_HEADER } = await import('../../packages/sdk/src/webhooks/verify.ts');
  const { webhookHeaders } = await import('../../src/domain/webhooks/sign.ts');
  const secrets = Array.from({ length: MAX_SIGNING_SECRETS }, () => generateSigningSecret());
  const header = webhookHeaders({ eventId: `evt_${'0'.repeat(26)}`, payload: '{}', secrets, at: Date.now() })['webhook-signature'];
  assert.equal(header.split(' ').length, MAX_SIGNING_SECRETS);
  assert.ok(header.length <= MAX_SIGNATURE_HEADER, `${header.length} characters, the SDK reads at most ${MAX_SIGNATURE_HEADER}`);
});
