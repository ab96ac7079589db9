// Fixed-window request counters. One interface, one implementation per engine, chosen once at
// start-up (src/storage/ratelimit/open.ts): memory for a single process, Redis for several nodes.

export interface WindowCount {
  /** requests counted in the current window, this one included */
  count: number;
  /** epoch ms at which the current window ends */
  resetAtMs: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Counts one request against `key` in the current window of `windowSec` seconds. */
  hit(key: string, windowSec: number): Promise<WindowCount>;
  /** The current window's count for `key` without counting. */
  peek(key: string, windowSec: number): Promise<WindowCount>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function windowStart(nowMs: number, windowSec: number): number {
  const windowMs = windowSec * 1000;
  return nowMs - (nowMs % windowMs);
}

/** Whole seconds until `window` ends (at least 1): the Retry-After of a refused request. */
export function retryAfterSec(window: WindowCount, nowMs: number): number {
  return Math.max(1, Math.ceil((window.resetAtMs - nowMs) / 1000));
}
