// A key of the service that the operator may configure and otherwise need not: the cursor MAC key
// (domain/cursor.ts) and the webhook signing secrets' encryption key (domain/webhooks/signing-secrets.ts).
// Unconfigured, it is a random 256-bit key generated once and kept in the database (`service_secrets`),
// so every node on the same database uses the same key and a restart keeps it.
import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/db/connect.ts';
import { findOrInsertServiceSecret } from '../storage/db/repositories/auth/service-secrets.ts';

// per database and key name: a process reads each stored key once
const stored = new WeakMap<Db, Map<string, Promise<Buffer>>>();

/**
 * `configured` when the operator set one, else the key stored under `name` (generated on first use,
 * read once per process; a failed read, such as the database being down, is retried by the next call).
 */
export function serviceKey(db: Db, name: string, configured: Buffer | undefined, now: () => number): Promise<Buffer> {
  if (configured !== undefined) return Promise.resolve(configured);
  let keys = stored.get(db);
  if (!keys) {
    keys = new Map();
    stored.set(db, keys);
  }
  let key = keys.get(name);
  if (!key) {
    const read = findOrInsertServiceSecret(db.kysely, name, () => randomBytes(32).toString('base64url'), now()).then((value) =>
      Buffer.from(value, 'base64url'),
    );
    keys.set(name, read);
    read.catch(() => {
      if (keys.get(name) === read) keys.delete(name);
    });
    key = read;
  }
  return key;
}
