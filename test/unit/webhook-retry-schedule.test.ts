// The retry schedule of webhook deliveries (src/domain/webhooks/retry-schedule.ts): delays grow,
// stay within their ±20 % jitter, settle at every 6 hours, and the last retry lands on the give-up
// limit rather than after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterFailure, JITTER, RETRY_DELAYS_MS, retryDelayMs } from '../../src/domain/webhooks/retry-schedule.ts';

const HOUR = 3_600_000;

test('delays grow from 5 s to every 6 h, each within ±20 % of its step', () => {
  assert.deepEqual(RETRY_DELAYS_MS, [5_000, 30_000, 120_000, 600_000, 1_800_000, HOUR, 3 * HOUR, 6 * HOUR]);
  for (const [i, base] of RETRY_DELAYS_MS.entries()) {
    assert.equal(retryDelayMs(i + 1, 0), Math.round(base * (1 - JITTER)));
    assert.equal(retryDelayMs(i + 1, 0.5), base);
    assert.ok(retryDelayMs(i + 1, 0.999999) <= base * (1 + JITTER));
  }
  assert.equal(retryDelayMs(50, 0.5), 6 * HOUR, 'past the list, every 6 hours');
  for (let n = 1; n < RETRY_DELAYS_MS.length; n++) assert.ok(retryDelayMs(n + 1, 0) > retryDelayMs(n, 0.999999), `step ${n} grows`);
});

test('a failure before the limit is retried; the retry is moved to the limit; a failure at the limit gives up', () => {
  const since = 1_000_000;
  const giveUp = 3 * 24 * HOUR;
  assert.deepEqual(afterFailure(1, since, since, giveUp, 0.5), { retryAt: since + 5_000 });
  const late = since + giveUp - HOUR;
  assert.deepEqual(afterFailure(20, late, since, giveUp, 0.5), { retryAt: since + giveUp }, 'not 6 h later');
  assert.equal(afterFailure(21, since + giveUp, since, giveUp, 0.5), 'give_up');
  assert.equal(afterFailure(2, since + giveUp + 1, since, giveUp), 'give_up');
});
