// Fixed-window request counters. One interface, one implementation per engine, chosen once at
// start-up (src/storage/ratelimit/open.ts): memory for a single process, Redis for several nodes.

export interface WindowCount {
  /** requests counted in the current window, this one included */
  count: number;
  /** epoch ms at which the current window ends */
  resetAtMs: number;
}

export interface RateLimitStore extends BackoffStore {
  readonly kind: 'memory' | 'redis';
  /** Counts one request against `key` in the current window of `windowSec` seconds. */
  hit(key: string, windowSec: number): Promise<WindowCount>;
  /** hit() without waiting, where the store is in this process (memory); absent where it is not. */
  hitNow?(key: string, windowSec: number): WindowCount;
  /** The current window's count for `key` without counting. */
  peek(key: string, windowSec: number): Promise<WindowCount>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Shared stores only (Redis): counts one request against `key` like hit() and reads the current
   * values of `markers` in the same round trip (null where absent); see MarkerBoard.
   */
  hitAndRead?(key: string, windowSec: number, markers: readonly string[]): Promise<{ window: WindowCount; markers: (string | null)[] }>;
}

/**
 * Numbered markers every node can read, raised after a commit so other nodes learn that state they
 * keep in memory changed (src/domain/auth/state-markers.ts). A marker only ever rises: raising it
 * to a value at or below its current one changes nothing, so a node that read older state cannot
 * lower it. Markers expire `ttlMs` after being set, so a raise that failed is repaired then.
 */
export interface MarkerBoard {
  raiseMarkers(entries: ReadonlyArray<readonly [key: string, value: number]>, ttlMs: number): Promise<void>;
}

/** Whether a store also keeps markers (Redis does; the in-memory store, one process's, needs none). */
export const isMarkerBoard = (store: RateLimitStore): store is RateLimitStore & MarkerBoard => 'raiseMarkers' in store;

export function windowStart(nowMs: number, windowSec: number): number {
  const windowMs = windowSec * 1000;
  return nowMs - (nowMs % windowMs);
}

/** Whole seconds until `window` ends (at least 1): the Retry-After of a refused request. */
export function retryAfterSec(window: WindowCount, nowMs: number): number {
  return Math.max(1, Math.ceil((window.resetAtMs - nowMs) / 1000));
}

/**
 * A growing delay between attempts (console sign-in per email): the first `freeFailures` failures
 * cost nothing; after n ≥ freeFailures failures the next attempt waits min(baseMs·2^(n−free), maxMs)
 * since the last attempt. Failures are forgotten `forgetAfterSec` after the last one.
 */
export interface Backoff {
  freeFailures: number;
  baseMs: number;
  maxMs: number;
  forgetAfterSec: number;
}

export interface BackoffClaim {
  allowed: boolean;
  /** ms until an attempt is allowed (0 when allowed) */
  waitMs: number;
}

export function backoffDelayMs(failures: number, b: Backoff): number {
  if (failures < b.freeFailures) return 0;
  return Math.min(b.maxMs, b.baseMs * 2 ** Math.min(failures - b.freeFailures, 40));
}

/** The part of a store that keeps backoff state; each engine implements it atomically. */
export interface BackoffStore {
  /**
   * Claims an attempt at `nowMs` (the caller's clock): refused while the delay since the last
   * attempt runs; when allowed and a delay applies, the claim itself restarts the delay, so
   * attempts sent in parallel cannot all slip through one opening.
   */
  claimAttempt(key: string, nowMs: number, backoff: Backoff): Promise<BackoffClaim>;
  /** Counts one failure at `nowMs`. */
  addFailure(key: string, nowMs: number, backoff: Backoff): Promise<void>;
  /** Forgets the failures (a success). */
  clearFailures(key: string): Promise<void>;
}
