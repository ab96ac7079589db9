// Administrator passwords, stored with scrypt: memory-hard (32 MiB per hash with these
// parameters), built into Node, and tunable without a migration because the parameters are kept
// in each stored hash ("scrypt$<log2 N>$<r>$<p>$<salt>$<hash>").
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { FieldIssue } from '../../shared/errors.ts';

const LOG2_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // Node refuses parameters needing more than `maxmem`; 128·N·r bytes plus headroom.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG2_N, R, P);
  return ['scrypt', LOG2_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[5], 'base64url');
  const key = await derive(password, Buffer.from(parts[4], 'base64url'), log2N, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

// A fixed hash to verify against when the email is unknown, so that the answer takes as long as
// for a known email and does not tell which emails have accounts.
let decoy: Promise<string> | undefined;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await decoy);
  return false;
}

/** A password made for an administrator (demo, reset): 120 random bits in 20 characters. */
export const generatePassword = () => randomBytes(15).toString('base64url');

export function passwordIssues(password: string, field = 'password'): FieldIssue[] {
  if (password.length < PASSWORD_MIN_LENGTH) return [{ field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (password.length > PASSWORD_MAX_LENGTH) return [{ field, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  return [];
}
