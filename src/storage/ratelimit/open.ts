import type { Config } from '../../config.ts';
import { MemoryRateLimitStore } from './memory.ts';
import { RedisRateLimitStore } from './redis.ts';
import type { RateLimitStore } from './store.ts';

export function openRateLimitStore(config: Pick<Config, 'redisUrl' | 'redisKeyPrefix'>, onError?: (err: Error) => void): RateLimitStore {
  return config.redisUrl
    ? new RedisRateLimitStore(config.redisUrl, { keyPrefix: config.redisKeyPrefix, onError })
    : new MemoryRateLimitStore();
}
