// Random identifiers and secrets, and how they are stored. Secrets and tokens carry 256 bits of
// randomness, so a single SHA-256 is a sufficient one-way hash (no slow KDF needed: there is
// nothing to brute-force); comparisons of secrets run in constant time.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

// Prefixes let secret scanners recognise leaked values.
export const CLIENT_ID_PREFIX = 'cds_id_';
export const CLIENT_SECRET_PREFIX = 'cds_secret_';
export const ACCESS_TOKEN_PREFIX = 'cds_at_';

export const newClientId = () => CLIENT_ID_PREFIX + randomBytes(12).toString('base64url');
export const newClientSecret = () => CLIENT_SECRET_PREFIX + randomBytes(32).toString('base64url');
export const newAccessToken = () => ACCESS_TOKEN_PREFIX + randomBytes(32).toString('base64url');

// The exact issued forms: prefix plus base64url of 12 or 32 random bytes. Anything else is refused
// before a lookup, so a megabyte of "client_id" never reaches a key, a query or a hash.
const ISSUED_CLIENT_ID = /^cds_id_[A-Za-z0-9_-]{16}$/;
const ISSUED_ACCESS_TOKEN = /^cds_at_[A-Za-z0-9_-]{43}$/;
export const isIssuedClientId = (value: string) => ISSUED_CLIENT_ID.test(value);
export const isIssuedAccessToken = (value: string) => ISSUED_ACCESS_TOKEN.test(value);

export function hashSecret(secret: string): string {
  // The one-shot form: every request hashes its token, and a Hash object per call cost three times as much.
  return hash('sha256', secret, 'hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
