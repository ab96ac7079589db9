// Counters in Redis, shared by every node. The window is computed from Redis's own clock inside
// one script, so nodes with skewed clocks still agree on which window a request falls in.
import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../../shared/errors.ts';
import { HIT_MANY, HitBatcher, type HitReply } from './redis-hits.ts';
import type { Backoff, BackoffClaim, MarkerBoard, RateLimitStore, WindowCount } from './store.ts';

// Raises each marker KEYS[i] to ARGV[i + 1] unless it already holds as much; ARGV[1] is the TTL in ms.
const RAISE = `
local ttl = tonumber(ARGV[1])
for i = 1, #KEYS do
  local value = tonumber(ARGV[i + 1])
  local current = tonumber(redis.call('GET', KEYS[i]) or '-1')
  if current < value then redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ttl) end
end
return 1
`;

interface Scripts {
  cdsHitMany(numKeys: number, ...args: string[]): Promise<(string | number | null)[]>;
  cdsRaise(numKeys: number, ...args: string[]): Promise<number>;
}

// Backoff state in one hash per key: f = failures, t = last attempt (the caller's clock, so the
// delay is measured on the clock that measures the attempts). The delay curve is the same as
// backoffDelayMs in store.ts; read, decide and write happen in one script, so parallel attempts
// cannot all pass one opening.
const BACKOFF = `
local mode = ARGV[1]
if mode == 'clear' then redis.call('DEL', KEYS[1]) return {1, 0} end
local now = tonumber(ARGV[2])
local free = tonumber(ARGV[3])
local base = tonumber(ARGV[4])
local maxMs = tonumber(ARGV[5])
local forgetMs = tonumber(ARGV[6])
local failures = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
if mode == 'fail' then
  redis.call('HSET', KEYS[1], 'f', failures + 1, 't', now)
  redis.call('PEXPIRE', KEYS[1], forgetMs)
  return {1, 0}
end
if failures < free then return {1, 0} end
local delay = math.min(maxMs, base * math.pow(2, math.min(failures - free, 40)))
local last = tonumber(redis.call('HGET', KEYS[1], 't') or '0')
local wait = last + delay - now
if wait > 0 then return {0, wait} end
redis.call('HSET', KEYS[1], 't', now)
return {1, 0}
`;

export class RedisRateLimitStore implements RateLimitStore, MarkerBoard {
  readonly kind = 'redis' as const;
  private readonly redis: Redis & Scripts;
  /** every count goes through here: one script call per turn (redis-hits.ts) */
  private readonly hits: HitBatcher;
  /** Settles once the first connection is up (or its time-out passes); see run(). */
  private readonly firstConnection: Promise<void>;

  constructor(url: string, options: { keyPrefix: string; onError?: (err: Error) => void }) {
    this.redis = new Redis(url, {
      // Fail at once while Redis is unreachable (503) rather than queueing requests behind it;
      // the client keeps reconnecting in the background, so the service recovers by itself.
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 2000,
      keyPrefix: options.keyPrefix,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    }) as Redis & Scripts;
    // Scripts are sent by their SHA (EVALSHA), not their text, on every call after the first.
    this.redis.defineCommand('cdsHitMany', { lua: HIT_MANY });
    this.hits = new HitBatcher((numKeys, args) => this.redis.cdsHitMany(numKeys, ...args));
    this.redis.defineCommand('cdsRaise', { lua: RAISE });
    this.redis.on('error', (err) => options.onError?.(err));
    // Without an offline queue, commands sent before the first connection is ready fail, so a node
    // that has just started would answer 503 to its first requests. Those wait for the first
    // connection (bounded by the connect time-out); after that an outage fails at once.
    this.firstConnection = new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      timer.unref();
      this.redis.once('ready', done);
    });
  }

  private async run(key: string, windowSec: number, count: boolean, markers: readonly string[] = []): Promise<HitReply> {
    await this.firstConnection;
    try {
      return await this.hits.hit({ key, windowSec, count, markers });
    } catch (err) {
      throw new DependencyUnavailableError('redis', describe(err), { cause: err });
    }
  }

  async hitAndRead(key: string, windowSec: number, markers: readonly string[]) {
    const [n, reset, ...values] = await this.run(key, windowSec, true, markers);
    return { window: { count: Number(n), resetAtMs: Number(reset) }, markers: markers.map((_, i) => values[i] ?? null) };
  }

  async raiseMarkers(entries: ReadonlyArray<readonly [key: string, value: number]>, ttlMs: number) {
    if (entries.length === 0) return;
    await this.firstConnection;
    try {
      await this.redis.cdsRaise(entries.length, ...entries.map(([key]) => key), String(ttlMs), ...entries.map(([, v]) => String(v)));
    } catch (err) {
      throw new DependencyUnavailableError('redis', describe(err), { cause: err });
    }
  }

  async hit(key: string, windowSec: number): Promise<WindowCount> {
    const [n, reset] = await this.run(key, windowSec, true);
    return { count: Number(n), resetAtMs: Number(reset) };
  }

  async peek(key: string, windowSec: number): Promise<WindowCount> {
    const [n, reset] = await this.run(key, windowSec, false);
    return { count: Number(n), resetAtMs: Number(reset) };
  }

  private async backoff(mode: 'claim' | 'fail' | 'clear', key: string, nowMs = 0, b?: Backoff): Promise<BackoffClaim> {
    await this.firstConnection;
    const args = b ? [nowMs, b.freeFailures, b.baseMs, b.maxMs, b.forgetAfterSec * 1000].map(String) : [];
    try {
      const [allowed, wait] = (await this.redis.eval(BACKOFF, 1, `backoff:${key}`, mode, ...args)) as [number, number];
      return { allowed: Number(allowed) === 1, waitMs: Number(wait) };
    } catch (err) {
      throw new DependencyUnavailableError('redis', describe(err), { cause: err });
    }
  }

  claimAttempt(key: string, nowMs: number, backoff: Backoff) {
    return this.backoff('claim', key, nowMs, backoff);
  }

  async addFailure(key: string, nowMs: number, backoff: Backoff) {
    await this.backoff('fail', key, nowMs, backoff);
  }

  async clearFailures(key: string) {
    await this.backoff('clear', key);
  }

  async ping() {
    try {
      await this.redis.ping();
    } catch (err) {
      throw new DependencyUnavailableError('redis', describe(err), { cause: err });
    }
  }

  async close() {
    this.redis.disconnect();
  }
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/writeable|connect|ECONNREFUSED|closed|timed out|timeout/i.test(message)) return 'connection unavailable';
  return 'command failed';
}
