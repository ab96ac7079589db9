// The one rate limiter over the rate-limit store, used by /v1, the token endpoint and console
// sign-in, with the one error a refused request gets. Keys are built here only: whatever
// identifies the subject (an address, a client ID, an email) is hashed, so a key is always short
// however long the input, in memory and in Redis alike.
import { createHash } from 'node:crypto';
import type { RateLimitSettings } from '../../config.ts';
import { RateLimitExceeded } from '../../shared/errors.ts';
import { retryAfterSec, type Backoff, type RateLimitStore, type WindowCount } from './store.ts';

export interface LimitState {
  limit: RateLimitSettings;
  window: WindowCount;
  /** true when this request is over the limit (hit), or the next one would be (peek) */
  exceeded: boolean;
  /** whole seconds to the end of the window (at least 1) */
  retryAfterSec: number;
}

/** `scope` is a constant of the code; `subject` comes from the request and is hashed. */
export function limiterKey(scope: string, subject: string): string {
  if (scope !== 'api') return `${scope}:${createHash('sha256').update(subject, 'utf8').digest('base64url')}`;
  // Every /v1 request counts against its credential: the keys of the credentials seen lately are
  // kept (credential IDs are the service's own short IDs; the oldest are dropped past the bound).
  let key = credentialKeys.get(subject);
  if (key === undefined) {
    key = `${scope}:${createHash('sha256').update(subject, 'utf8').digest('base64url')}`;
    if (credentialKeys.size >= MAX_CREDENTIAL_KEYS) credentialKeys.delete(credentialKeys.keys().next().value as string);
    credentialKeys.set(subject, key);
  }
  return key;
}

const MAX_CREDENTIAL_KEYS = 10_000;
const credentialKeys = new Map<string, string>();

/** Counts one request of `subject` against `limit`. */
export async function hitLimit(
  store: RateLimitStore,
  scope: string,
  subject: string,
  limit: RateLimitSettings,
  nowMs: number,
): Promise<LimitState> {
  return counted(limit, await store.hit(limiterKey(scope, subject), limit.windowSec), nowMs);
}

/** The state of a request just counted in `window`. */
const counted = (limit: RateLimitSettings, window: WindowCount, nowMs: number): LimitState => ({
  limit,
  window,
  exceeded: window.count > limit.max,
  retryAfterSec: retryAfterSec(window, nowMs),
});

/** hitLimit without waiting, for stores held in this process; undefined for the others. */
export function hitLimitNow(
  store: RateLimitStore,
  scope: string,
  subject: string,
  limit: RateLimitSettings,
  nowMs: number,
): LimitState | undefined {
  return store.hitNow ? counted(limit, store.hitNow(limiterKey(scope, subject), limit.windowSec), nowMs) : undefined;
}

/**
 * hitLimit, reading the values of `markers` in the same round trip (stores that hold markers only:
 * check `store.hitAndRead` first).
 */
export async function hitLimitAndRead(
  store: RateLimitStore,
  scope: string,
  subject: string,
  limit: RateLimitSettings,
  nowMs: number,
  markers: readonly string[],
): Promise<{ state: LimitState; markers: (string | null)[] }> {
  if (!store.hitAndRead) throw new Error(`the ${store.kind} rate-limit store holds no markers`);
  const read = await store.hitAndRead(limiterKey(scope, subject), limit.windowSec, markers);
  return { state: counted(limit, read.window, nowMs), markers: read.markers };
}

/** Whether `subject` has used up `limit`, without counting. */
export async function peekLimit(
  store: RateLimitStore,
  scope: string,
  subject: string,
  limit: RateLimitSettings,
  nowMs: number,
): Promise<LimitState> {
  const window = await store.peek(limiterKey(scope, subject), limit.windowSec);
  return { limit, window, exceeded: window.count >= limit.max, retryAfterSec: retryAfterSec(window, nowMs) };
}

/** Claims an attempt under a growing delay; `undefined` when allowed, else the seconds to wait. */
export async function claimAttempt(
  store: RateLimitStore,
  scope: string,
  subject: string,
  backoff: Backoff,
  nowMs: number,
): Promise<number | undefined> {
  const claim = await store.claimAttempt(limiterKey(scope, subject), nowMs, backoff);
  return claim.allowed ? undefined : Math.max(1, Math.ceil(claim.waitMs / 1000));
}

export function recordFailure(store: RateLimitStore, scope: string, subject: string, backoff: Backoff, nowMs: number): Promise<void> {
  return store.addFailure(limiterKey(scope, subject), nowMs, backoff);
}

export function forgetFailures(store: RateLimitStore, scope: string, subject: string): Promise<void> {
  return store.clearFailures(limiterKey(scope, subject));
}

/**
 * The one error of a refused request: 429 rate_limit_exceeded with details [{ retryAfterSec }];
 * the HTTP layer adds Retry-After from it (and renders it as the OAuth body on /oauth/token).
 */
export function rateLimitExceeded(retryAfter: number, what = 'Rate limit exceeded'): RateLimitExceeded {
  return new RateLimitExceeded(retryAfter, `${what}; retry in ${retryAfter} s.`);
}
