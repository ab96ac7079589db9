// Endpoints' signing secrets (Standard Webhooks "whsec_" secrets). Signing needs the secret itself,
// so unlike credential secrets they cannot be hashed: they are encrypted at rest with AES-256-GCM
// under a key of the service, and each ciphertext is bound to its endpoint (the GCM additional
// data), so a ciphertext copied onto another endpoint's row, or altered, fails to decrypt rather
// than signing with the wrong secret.
//
// The key: WEBHOOK_SECRETS_KEY when configured (stretched to 256 bits with SHA-256), otherwise a
// random 256-bit key generated once and kept in the database (`service_secrets`), as the cursor
// key is (domain/service-key.ts serves both), so every node on the same database reads the same secrets.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { BaseContext } from '../context.ts';
import type { Db } from '../../storage/db/connect.ts';
import { findLiveSecrets } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { serviceKey } from '../service-key.ts';

const SECRET_NAME = 'webhook_secrets_key';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new Standard Webhooks secret: "whsec_" + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The encryption key: derived from the configured one, or the one kept in the database (read once per process). */
export function signingSecretsKey(db: Db, configured: string | undefined, now: () => number = Date.now): Promise<Buffer> {
  const derived = configured ? createHash('sha256').update(`webhook-secrets\n${configured}`).digest() : undefined;
  return serviceKey(db, SECRET_NAME, derived, now);
}

/** The key for `ctx`: an explicit webhookSecretsKey, else config.webhooks.secretsKey, else the stored one. */
export function contextSecretsKey(ctx: BaseContext & { webhookSecretsKey?: string }): Promise<Buffer> {
  return signingSecretsKey(ctx.db, ctx.webhookSecretsKey ?? ctx.webhooks?.secretsKey, ctx.now);
}

/** `secret` encrypted for `endpointId`: "v1.<base64url of iv | tag | ciphertext>". */
export function encryptSigningSecret(key: Buffer, endpointId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The secret inside `ciphertext`; throws when it was altered, made for another endpoint or under another key. */
export function decryptSigningSecret(key: Buffer, endpointId: string, ciphertext: string): string {
  const [version, encoded, extra] = ciphertext.split('.');
  if (version !== VERSION || encoded === undefined || extra !== undefined) throw new Error('Unknown signing secret format');
  const raw = Buffer.from(encoded, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('Truncated signing secret');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Secrets that sign one delivery at the most: the current one and the previous one during a
 * rotation's overlap (rotate-secret.ts keeps no more live). Also applied when reading, so secrets
 * left live by a version without the cap never make a longer header.
 */
export const MAX_SIGNING_SECRETS = 2;

/** The secrets that sign a delivery now: the current one and the previous one still inside its overlap (expires_at > now), newest first, decrypted. */
export async function liveSigningSecrets(
  ctx: BaseContext & { webhookSecretsKey?: string },
  endpointId: string,
  now: number,
): Promise<string[]> {
  const rows = await findLiveSecrets(ctx.db.kysely, endpointId, now, MAX_SIGNING_SECRETS);
  if (rows.length === 0) return [];
  const key = await contextSecretsKey(ctx);
  return rows.map((row) => decryptSigningSecret(key, row.endpointId, row.secretCiphertext));
}
