// Opaque, tamper-evident pagination cursors. A cursor is `<payload>.<mac>`: the payload is the
// page position (base64url JSON), the MAC an HMAC-SHA256 over a version tag, the *binding* (what
// the cursor was issued for: organization and normalized filters) and the payload. A cursor that
// was altered, forged, or presented with other filters or by another organization fails the MAC
// check and is refused; nothing in it is trusted before that check.
//
// The key: CURSOR_SECRET when configured; otherwise a random 256-bit key generated once and kept
// in the database (`service_secrets`, domain/service-key.ts), so every node on the same database
// signs and accepts the same cursors and a restart does not invalidate them.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Db } from '../storage/db/connect.ts';
import { serviceKey } from './service-key.ts';

const VERSION = 'c1';
const SECRET_NAME = 'cursor_hmac_key';

/** The signing key: the configured secret, or the one kept in the database (read once per process). */
export function cursorKey(db: Db, configured: string | undefined, now: () => number = Date.now): Promise<Buffer> {
  return serviceKey(db, SECRET_NAME, configured ? configuredKey(configured) : undefined, now);
}

/** The configured secret's bytes, the same Buffer on every call (so its KeyObject below is made once). */
const configuredKeys = new Map<string, Buffer>();
function configuredKey(secret: string): Buffer {
  let key = configuredKeys.get(secret);
  if (!key) {
    if (configuredKeys.size >= 8) configuredKeys.clear(); // one per deployment; tests configure a few
    configuredKeys.set(secret, (key = Buffer.from(secret, 'utf8')));
  }
  return key;
}

/** The key as a KeyObject, made once per key: an HMAC keyed by a Buffer costs four times as much (the key is imported on every call). */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function mac(key: Buffer, binding: string, payload: string): Buffer {
  let keyObject = keyObjects.get(key);
  if (!keyObject) keyObjects.set(key, (keyObject = createSecretKey(key)));
  return createHmac('sha256', keyObject).update(`${VERSION}\n${binding}\n${payload}`).digest();
}

/** Signs a page position for `binding`. */
export function signCursor(key: Buffer, binding: string, position: readonly (string | number)[]): string {
  const payload = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${payload}.${mac(key, binding, payload).toString('base64url')}`;
}

/** The position inside `cursor`, or undefined when it is malformed, altered or issued for another binding. */
export function openCursor(key: Buffer, binding: string, cursor: string): unknown[] | undefined {
  const dot = cursor.indexOf('.');
  if (dot <= 0 || dot !== cursor.lastIndexOf('.')) return undefined;
  const payload = cursor.slice(0, dot);
  const signature = cursor.slice(dot + 1);
  const given = Buffer.from(signature, 'base64url');
  // base64url decoding skips stray characters; accept only the one canonical spelling
  if (given.toString('base64url') !== signature) return undefined;
  const expected = mac(key, binding, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const position: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(position) ? position : undefined;
  } catch {
    return undefined;
  }
}
