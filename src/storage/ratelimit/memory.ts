// In-process counters: right for one node, wrong for several (each would count alone).
import { windowStart, type RateLimitStore, type WindowCount } from './store.ts';

export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, { start: number; end: number; count: number }>();
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
    const entry = this.current(key, windowSec);
    entry.count += 1;
    return { count: entry.count, resetAtMs: entry.end };
  }

  async peek(key: string, windowSec: number): Promise<WindowCount> {
    const entry = this.current(key, windowSec);
    return { count: entry.count, resetAtMs: entry.end };
  }

  private sweep() {
    const now = this.now();
    for (const [name, entry] of this.counters) if (entry.end <= now) this.counters.delete(name);
  }

  async ping() {}

  async close() {
    clearInterval(this.sweeper);
    this.counters.clear();
  }
}
