// Verifies a webhook request the service sent, by the Standard Webhooks scheme: the signed content
// is `{webhook-id}.{webhook-timestamp}.{body}`, each `v1,<base64>` entry of webhook-signature is
// an HMAC-SHA256 of it under one of the endpoint's secrets (`whsec_` + base64), and the timestamp
// must be within a tolerance of now so a captured request cannot be replayed later. Only WebCrypto
// is used (crypto.subtle), so it runs wherever the rest of the SDK does; the comparison of MACs
// takes the same time whatever bytes differ (see `sameBytes`).
import { WebhookVerificationError } from '../errors.ts';
import type { WebhookEvent } from '../types.ts';
import { decodeBase64 } from './base64.ts';
import { headerValue, type WebhookHeaders } from './headers.ts';

/** The raw request body exactly as received: never a parsed-and-reserialized object. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/** The endpoint's signing secret (`whsec_…`, as the console shows it once), or several during a rotation. */
export type WebhookSecret = string | readonly string[];

export interface VerifyWebhookOptions {
  /** how far `webhook-timestamp` may be from now, in seconds, either way (default 300, the standard's 5 minutes) */
  toleranceSec?: number;
  /** the current time in epoch milliseconds (default Date.now); tests and replays of stored requests pass their own */
  now?: () => number;
}

export const DEFAULT_TOLERANCE_SEC = 300;

/**
 * Longer signature headers are refused unread. The service signs with at most two secrets (the
 * current one and, during a rotation's overlap, the previous one), about 100 characters; the
 * bound leaves room for other Standard Webhooks senders. test/unit/webhook-signing-secrets.test.ts
 * checks that the service's longest header stays within it.
 */
export const MAX_SIGNATURE_HEADER = 4096;
/** A webhook-id longer than this is not one of ours (they are `evt_` + 26 characters). */
const MAX_ID_LENGTH = 256;
const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * Checks the request's signature, then returns its body parsed as the typed event. Throws
 * WebhookVerificationError (with `reason`) when a header is missing or malformed, the timestamp is
 * outside the tolerance, or no signature matches any of the secrets; a TypeError when the body or
 * a secret is not of a usable kind (a programming error rather than a bad request).
 */
export async function verifyWebhook(
  body: WebhookBody,
  headers: WebhookHeaders,
  secret: WebhookSecret,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const bytes = bodyBytes(body);
  const keys = secretKeys(secret);
  const tolerance = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new TypeError('toleranceSec must be a number of seconds ≥ 0');

  const id = requiredHeader(headers, 'webhook-id');
  const timestampText = requiredHeader(headers, 'webhook-timestamp');
  const signatureText = requiredHeader(headers, 'webhook-signature');
  if (id.length > MAX_ID_LENGTH)
    throw new WebhookVerificationError('invalid_header', `webhook-id is longer than ${MAX_ID_LENGTH} characters`, 'webhook-id');
  if (!/^\d{1,15}$/.test(timestampText))
    throw new WebhookVerificationError('invalid_header', 'webhook-timestamp is not a whole number of seconds', 'webhook-timestamp');
  const timestamp = Number(timestampText);
  const nowSec = Math.floor((options.now ?? Date.now)() / 1000);
  if (nowSec - timestamp > tolerance)
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is ${nowSec - timestamp} s in the past, more than the tolerance of ${tolerance} s (a replayed request, or a clock that is off)`,
      'webhook-timestamp',
    );
  if (timestamp - nowSec > tolerance)
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `webhook-timestamp is ${timestamp - nowSec} s in the future, more than the tolerance of ${tolerance} s (a clock that is off)`,
      'webhook-timestamp',
    );
  if (signatureText.length > MAX_SIGNATURE_HEADER)
    throw new WebhookVerificationError(
      'invalid_header',
      `webhook-signature is longer than ${MAX_SIGNATURE_HEADER} characters`,
      'webhook-signature',
    );

  const candidates = v1Signatures(signatureText);
  if (candidates.length === 0)
    throw new WebhookVerificationError('invalid_header', 'webhook-signature has no "v1,<base64>" entry', 'webhook-signature');

  const signed = concat(encoder.encode(`${id}.${timestampText}.`), bytes);
  let matched = false;
  for (const key of keys) {
    const expected = await hmacSha256(key, signed);
    // Every candidate is compared, match or not, so the time taken does not say which one matched.
    for (const candidate of candidates) if (sameBytes(expected, candidate)) matched = true;
  }
  if (!matched)
    throw new WebhookVerificationError(
      'no_matching_signature',
      keys.length > 1
        ? `no signature matches any of the ${keys.length} secrets (a wrong secret, or a body changed after signing)`
        : 'no signature matches the secret (a wrong secret, or a body changed after signing)',
      'webhook-signature',
    );
  return parseEvent(bytes);
}

function bodyBytes(body: WebhookBody): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body; // Node's Buffer too
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError(
    'body must be the raw request body as a string or bytes, not a parsed object: a parsed body serialized again ' +
      'need not be the signed bytes (with Express use express.raw({ type: "application/json" }) on this route)',
  );
}

function secretKeys(secret: WebhookSecret): Uint8Array[] {
  const list: readonly unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (list.length === 0) throw new TypeError('secret must be the endpoint\'s signing secret ("whsec_…") or a non-empty array of them');
  return list.map((s, i) => {
    const where = list.length > 1 ? `secret ${i + 1}` : 'secret';
    if (typeof s !== 'string') throw new TypeError(`${where} must be a string ("whsec_…")`);
    const key = decodeBase64(s.startsWith(SECRET_PREFIX) ? s.slice(SECRET_PREFIX.length) : s);
    if (!key || key.length === 0) throw new TypeError(`${where} is not a signing secret: expected "whsec_" followed by base64`);
    return key;
  });
}

function requiredHeader(headers: WebhookHeaders, name: string): string {
  const value = headerValue(headers, name, name === 'webhook-signature' ? ' ' : undefined);
  if (value === undefined || value?.trim() === '')
    throw new WebhookVerificationError('missing_header', `the ${name} header is missing`, name);
  if (value === null) throw new WebhookVerificationError('invalid_header', `the ${name} header appears more than once`, name);
  return value.trim();
}

/** The decoded `v1` signatures; entries of other schemes (`v1a,…`) and undecodable ones are skipped. */
function v1Signatures(header: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const entry of header.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const decoded = decodeBase64(entry.slice(comma + 1));
    if (decoded && decoded.length > 0) out.push(decoded);
  }
  return out;
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', copy(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, copy(data)));
}

/** Equal bytes, in a time that depends only on the lengths (a MAC's length is public). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A copy backed by a plain ArrayBuffer (what WebCrypto's types ask for; a Buffer may share a pool). */
function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

function parseEvent(bytes: Uint8Array): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signature matches but the body is not UTF-8 JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { type?: unknown }).type !== 'string')
    throw new WebhookVerificationError('invalid_payload', 'the signature matches but the body is not an event object');
  return value as WebhookEvent;
}
