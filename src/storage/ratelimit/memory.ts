// In-process counters: right for one node, wrong for several (each would count alone).
import { backoffDelayMs, windowStart, type Backoff, type BackoffClaim, type RateLimitStore, type WindowCount } from './store.ts';

export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, { start: number; end: number; count: number }>();
  /** backoff state: failures, last attempt (caller's clock) and when it is forgotten (this store's clock) */
  private readonly backoffs = new Map<string, { failures: number; lastAtMs: number; forgetAtMs: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    // Drop finished windows so keys of departed clients do not accumulate.
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private current(key: string, windowSec: number) {
    const now = this.now();
    const start = windowStart(now, windowSec);
    const name = `${key}:${windowSec}`;
    let entry = this.counters.get(name);
    if (!entry || entry.start !== start) {
      entry = { start, end: start + windowSec * 1000, count: 0 };
      this.counters.set(name, entry);
    }
    return entry;
  }

  async hit(key: string, windowSec: number): Promise<WindowCount> {
    return this.hitNow(key, windowSec);
  }

  hitNow(key: string, windowSec: number): WindowCount {
    const entry = this.current(key, windowSec);
    entry.count += 1;
    return { count: entry.count, resetAtMs: entry.end };
  }

  async peek(key: string, windowSec: number): Promise<WindowCount> {
    const entry = this.current(key, windowSec);
    return { count: entry.count, resetAtMs: entry.end };
  }

  private backoff(key: string) {
    const entry = this.backoffs.get(key);
    if (entry && entry.forgetAtMs <= this.now()) {
      this.backoffs.delete(key);
      return undefined;
    }
    return entry;
  }

  async claimAttempt(key: string, nowMs: number, backoff: Backoff): Promise<BackoffClaim> {
    const entry = this.backoff(key);
    if (!entry) return { allowed: true, waitMs: 0 };
    const delay = backoffDelayMs(entry.failures, backoff);
    if (delay === 0) return { allowed: true, waitMs: 0 };
    const waitMs = entry.lastAtMs + delay - nowMs;
    if (waitMs > 0) return { allowed: false, waitMs };
    entry.lastAtMs = nowMs;
    return { allowed: true, waitMs: 0 };
  }

  async addFailure(key: string, nowMs: number, backoff: Backoff): Promise<void> {
    const entry = this.backoff(key) ?? { failures: 0, lastAtMs: nowMs, forgetAtMs: 0 };
    entry.failures += 1;
    entry.lastAtMs = nowMs;
    entry.forgetAtMs = this.now() + backoff.forgetAfterSec * 1000;
    this.backoffs.set(key, entry);
  }

  async clearFailures(key: string): Promise<void> {
    this.backoffs.delete(key);
  }

  private sweep() {
    const now = this.now();
    for (const [name, entry] of this.counters) if (entry.end <= now) this.counters.delete(name);
    for (const [key, entry] of this.backoffs) if (entry.forgetAtMs <= now) this.backoffs.delete(key);
  }

  /** Number of keys held (windows and backoffs): lets tests check that input cannot grow the store. */
  get size(): { keys: number; keyChars: number } {
    let keyChars = 0;
    for (const k of this.counters.keys()) keyChars += k.length;
    for (const k of this.backoffs.keys()) keyChars += k.length;
    return { keys: this.counters.size + this.backoffs.size, keyChars };
  }

  async ping() {}

  async close() {
    clearInterval(this.sweeper);
    this.counters.clear();
    this.backoffs.clear();
  }
}
