import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultCache, orgResultKey } from '../../src/domain/result-cache.ts';

test('cache keys ignore list order and duplicates but never confuse different inputs', () => {
  const k = (input: Record<string, unknown>, version = 1) => orgResultKey('org', version, 'verb', input);
  assert.equal(k({ a: ['x', 'y'], b: undefined }), k({ a: ['y', 'x', 'x'] }));
  assert.notEqual(k({ a: ['x,y'] }), k({ a: ['x', 'y'] }));
  assert.notEqual(k({ a: 'x&b=y' }), k({ a: 'x', b: 'y' }));
  assert.notEqual(k({ a: ['x'] }, 1), k({ a: ['x'] }, 2));
  assert.notEqual(orgResultKey('o1', 1, 'v', {}), orgResultKey('o2', 1, 'v', {}));
});

test('concurrent misses share one computation; failures are not kept; the oldest entry is evicted', async () => {
  const cache = new ResultCache(2);
  const key = (name: string) => orgResultKey('org', 1, name, {});
  let calls = 0;
  const compute = async () => {
    calls++;
    return new Promise<number>((r) => setTimeout(() => r(calls), 5));
  };
  const [a, b] = await Promise.all([cache.getOrCompute(key('k'), compute), cache.getOrCompute(key('k'), compute)]);
  assert.equal(calls, 1);
  assert.equal(a, b);
  await assert.rejects(cache.getOrCompute(key('bad'), async () => Promise.reject(new Error('boom'))));
  assert.equal(await cache.getOrCompute(key('bad'), async () => 7), 7);
  await cache.getOrCompute(key('third'), async () => 3);
  assert.equal(cache.size, 2);
  let recomputed = false;
  await cache.getOrCompute(key('k'), async () => {
    recomputed = true;
    return 0;
  });
  assert.equal(recomputed, true, 'the least recently used key was evicted');
});

test("an organization's entries of older data versions are dropped when a newer version is seen", async () => {
  const cache = new ResultCache(100);
  await cache.getOrCompute(orgResultKey('a', 1, 'list', {}), async () => 'a1');
  await cache.getOrCompute(orgResultKey('a', 1, 'get', { id: 'x' }), async () => 'a1x');
  await cache.getOrCompute(orgResultKey('b', 1, 'list', {}), async () => 'b1');
  assert.equal(cache.size, 3);
  await cache.getOrCompute(orgResultKey('a', 2, 'list', {}), async () => 'a2');
  assert.equal(cache.size, 2, 'a@1 entries gone, b@1 kept');
  // a request authenticated before the write (older version) is answered but not cached
  assert.equal(await cache.getOrCompute(orgResultKey('a', 1, 'list', {}), async () => 'late'), 'late');
  assert.equal(cache.size, 2);
  assert.equal(await cache.getOrCompute(orgResultKey('b', 1, 'list', {}), async () => 'recomputed'), 'b1');
});
