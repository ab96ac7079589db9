// Counters in Redis, shared by every node. The window is computed from Redis's own clock inside
// one script, so nodes with skewed clocks still agree on which window a request falls in.
import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { RateLimitStore, WindowCount } from './store.ts';

const HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local start = now - (now % windowMs)
local key = KEYS[1] .. ':' .. ARGV[1] .. ':' .. start
local count
if ARGV[2] == '1' then
  count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, windowMs + 5000) end
else
  count = tonumber(redis.call('GET', key) or '0')
end
return {count, start + windowMs}
`;

export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  /** Settles once the first connection is up (or its time-out passes); see run(). */
  private readonly firstConnection: Promise<void>;

  constructor(url: string, options: { keyPrefix: string; onError?: (err: Error) => void }) {
    this.redis = new Redis(url, {
      // Fail at once while Redis is unreachable (503) rather than queueing requests behind it;
      // the client keeps reconnecting in the background, so the service recovers by itself.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 2000,
      keyPrefix: options.keyPrefix,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
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

  private async run(key: string, windowSec: number, count: boolean): Promise<WindowCount> {
    await this.firstConnection;
    try {
      const [n, reset] = (await this.redis.eval(HIT, 1, key, String(windowSec * 1000), count ? '1' : '0')) as [
        number,
        number,
      ];
      return { count: Number(n), resetAtMs: Number(reset) };
    } catch (err) {
      throw new DependencyUnavailableError('redis', describe(err), { cause: err });
    }
  }

  hit(key: string, windowSec: number) {
    return this.run(key, windowSec, true);
  }

  peek(key: string, windowSec: number) {
    return this.run(key, windowSec, false);
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
