import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultCache, orgResultKey } from '../../src/domain/result-cache.ts';
import { INITIAL_DATA_VERSIONS, type DataVersions } from '../../src/shared/data-versions.ts';

/** Every kind at version `n`, with the given exceptions. */
const at = (n: number, others: Partial<DataVersions> = {}): DataVersions => ({
  controls: n,
  policies: n,
  evidence: n,
  tests: n,
  vulnerabilities: n,
  ...others,
});

test('cache keys ignore list order and duplicates but never confuse different inputs', () => {
  const k = (input: Record<string, unknown>, version = 1) => orgResultKey('org', at(version), 'policies.list', input).text;
  assert.equal(k({ a: ['x', 'y'], b: undefined }), k({ a: ['y', 'x', 'x'] }));
  assert.notEqual(k({ a: ['x,y'] }), k({ a: ['x', 'y'] }));
  assert.notEqual(k({ a: 'x&b=y' }), k({ a: 'x', b: 'y' }));
  assert.notEqual(k({ a: ['x'] }, 1), k({ a: ['x'] }, 2));
  assert.notEqual(orgResultKey('o1', at(1), 'policies.list', {}).text, orgResultKey('o2', at(1), 'policies.list', {}).text);
  assert.notEqual(orgResultKey('o', at(1), 'policies.list', {}).text, orgResultKey('o', at(1), 'evidence.list', {}).text);
});

test('a key holds the versions of the kinds its verb reads, and only those', () => {
  const key = (versions: DataVersions) => orgResultKey('org', versions, 'policies.list', {}).text;
  assert.equal(key(INITIAL_DATA_VERSIONS), key(at(0, { evidence: 5, tests: 2, vulnerabilities: 9 })));
  assert.notEqual(key(INITIAL_DATA_VERSIONS), key(at(0, { policies: 1 })));
  assert.notEqual(key(INITIAL_DATA_VERSIONS), key(at(0, { controls: 1 })));
});

test('concurrent misses share one computation; failures are not kept', async () => {
  const cache = new ResultCache();
  const key = (id: string) => orgResultKey('org', at(1), 'policies.get', { id });
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
  assert.equal(cache.size, 2, 'the failure left no entry');
});

test('a result kept on repeat holds nothing when asked once; the second ask keeps it; concurrent first asks share', async () => {
  const cache = new ResultCache();
  const key = (cursor: string) => orgResultKey('org', at(1), 'vulnerabilities.list', { nextCursor: cursor });
  let calls = 0;
  const compute = async () => {
    calls++;
    return new Promise<{ n: number }>((r) => setTimeout(() => r({ n: calls }), 5));
  };
  const first = await cache.getOrCompute(key('deep'), compute, 'on-repeat');
  await settle();
  assert.equal(calls, 1);
  assert.equal(cache.size, 0, 'a page asked once is not kept');
  assert.equal(cache.bytesHeld, 0);
  assert.equal(cache.shares(first), false, 'nor its answer bytes');

  const second = await cache.getOrCompute(key('deep'), compute, 'on-repeat');
  await settle();
  assert.equal(calls, 2, 'asked again: computed, and kept from now on');
  assert.equal(cache.size, 1);
  assert.ok(cache.shares(second));
  assert.equal(await cache.getOrCompute(key('deep'), compute, 'on-repeat'), second);
  assert.equal(calls, 2);

  const [a, b] = await Promise.all([
    cache.getOrCompute(key('other'), compute, 'on-repeat'),
    cache.getOrCompute(key('other'), compute, 'on-repeat'),
  ]);
  assert.equal(calls, 3, 'two requests at once for a page not asked before share one computation');
  assert.equal(a, b);
  await assert.rejects(cache.getOrCompute(key('bad'), async () => Promise.reject(new Error('boom')), 'on-repeat'));
  assert.equal(await cache.getOrCompute(key('bad'), async () => ({ n: 7 }), 'on-repeat').then((r) => r.n), 7);

  const none = new ResultCache(0);
  await none.getOrCompute(key('deep'), compute, 'on-repeat');
  await none.getOrCompute(key('deep'), compute, 'on-repeat');
  assert.equal(none.size, 0, 'a budget of 0 keeps nothing either way');
});

/** Results are estimated once the answers waiting for them are written: after the current I/O. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A result of about `n` estimated bytes: one string of `n` Latin-1 characters. */
const sized = (n: number, tag = 'x') => ({ text: tag.repeat(n) });

test('the bytes held stay within the bound: the least recently used entries go first', async () => {
  const cache = new ResultCache(64 * 1024);
  const key = (id: string) => orgResultKey('org', at(1), 'policies.get', { id });
  const reported: number[] = [];
  cache.reportBytesTo((held) => reported.push(held));
  for (let i = 0; i < 10; i++) {
    await cache.getOrCompute(key(`k${i}`), async () => sized(10_000));
    await settle();
  }
  assert.ok(cache.bytesHeld <= cache.maxBytes, `${cache.bytesHeld} bytes held`);
  assert.ok(cache.bytesHeld > cache.maxBytes - 12_000, `the budget is used (${cache.bytesHeld} bytes)`);
  assert.ok(Math.max(...reported) <= cache.maxBytes, 'never more than the bound, at any step');
  assert.equal(reported.at(-1), cache.bytesHeld);
  const kept = cache.size;
  assert.ok(kept >= 5 && kept < 10, `${kept} entries of ~10 KB in 64 KiB`);
  // the newest are kept, the oldest recomputed
  let recomputed = false;
  await cache.getOrCompute(key('k9'), async () => {
    recomputed = true;
    return sized(1);
  });
  assert.equal(recomputed, false, 'the most recent entry is kept');
  await cache.getOrCompute(key('k0'), async () => {
    recomputed = true;
    return sized(1);
  });
  assert.equal(recomputed, true, 'the least recently used entry was dropped');
});

test('a result larger than the whole budget is answered, not kept nor shared', async () => {
  const cache = new ResultCache(16 * 1024);
  const key = (id: string) => orgResultKey('org', at(1), 'policies.get', { id });
  const small = await cache.getOrCompute(key('small'), async () => sized(100));
  const big = await cache.getOrCompute(key('big'), async () => sized(20_000));
  await settle();
  assert.equal(big.text.length, 20_000, 'the caller gets its answer');
  assert.equal(cache.shares(big), false, 'not shared: its answer bytes are not kept either');
  assert.equal(cache.shares(small), true);
  assert.ok(cache.bytesHeld <= cache.maxBytes);
  let calls = 0;
  await cache.getOrCompute(key('big'), async () => {
    calls++;
    return sized(20_000);
  });
  assert.equal(calls, 1, 'asked again, it is computed again');
  assert.equal(await cache.getOrCompute(key('small'), async () => sized(1)), small, 'the small one stayed');
});

test('a budget of 0 keeps nothing, and remembers no organization', async () => {
  const cache = new ResultCache(0);
  for (let i = 0; i < 100; i++) await cache.getOrCompute(orgResultKey(`org${i}`, at(1), 'policies.list', {}), async () => sized(10));
  assert.equal(cache.size, 0);
  assert.equal(cache.bytesHeld, 0);
});

test('entries of many organizations: the estimate follows every entry in and out', async () => {
  const cache = new ResultCache(256 * 1024);
  for (let i = 0; i < 1000; i++) {
    const versions = at(1 + (i % 3));
    await cache.getOrCompute(orgResultKey(`org${i % 200}`, versions, 'policies.list', {}), async () => sized(500 + (i % 7) * 300, `${i}`));
    await settle();
    assert.ok(cache.bytesHeld <= cache.maxBytes, `step ${i}: ${cache.bytesHeld} bytes held`);
  }
  cache.clear();
  assert.equal(cache.bytesHeld, 0, 'what is added and taken away balances');
});

test("an organization's entries of older data versions are dropped when a newer version is seen", async () => {
  const cache = new ResultCache();
  await cache.getOrCompute(orgResultKey('a', at(1), 'policies.list', {}), async () => 'a1');
  await cache.getOrCompute(orgResultKey('a', at(1), 'policies.get', { id: 'x' }), async () => 'a1x');
  await cache.getOrCompute(orgResultKey('b', at(1), 'policies.list', {}), async () => 'b1');
  assert.equal(cache.size, 3);
  await cache.getOrCompute(orgResultKey('a', at(2), 'policies.list', {}), async () => 'a2');
  assert.equal(cache.size, 2, 'a@1 entries gone, b@1 kept');
  // a request authenticated before the write (older version) is answered but not cached
  assert.equal(await cache.getOrCompute(orgResultKey('a', at(1), 'policies.list', {}), async () => 'late'), 'late');
  assert.equal(cache.size, 2);
  assert.equal(await cache.getOrCompute(orgResultKey('b', at(1), 'policies.list', {}), async () => 'recomputed'), 'b1');
});

test('a newer version of one kind drops only the entries that read that kind', async () => {
  const cache = new ResultCache();
  const before = at(1);
  await cache.getOrCompute(orgResultKey('a', before, 'controls.list', {}), async () => 'controls');
  await cache.getOrCompute(orgResultKey('a', before, 'vulnerabilities.list', {}), async () => 'vulns');
  await cache.getOrCompute(orgResultKey('a', before, 'evidence.list', {}), async () => 'evidence');
  const afterVulnerabilityWrite = at(1, { vulnerabilities: 2 });
  assert.equal(
    await cache.getOrCompute(orgResultKey('a', afterVulnerabilityWrite, 'vulnerabilities.list', {}), async () => 'vulns2'),
    'vulns2',
  );
  assert.equal(
    await cache.getOrCompute(orgResultKey('a', afterVulnerabilityWrite, 'controls.list', {}), async () => 'recomputed'),
    'controls',
  );
  assert.equal(cache.size, 3, 'the old vulnerability list is gone; the controls and evidence lists are kept');
  const afterEvidenceWrite = at(1, { vulnerabilities: 2, evidence: 2 });
  assert.equal(await cache.getOrCompute(orgResultKey('a', afterEvidenceWrite, 'controls.list', {}), async () => 'controls2'), 'controls2');
  assert.equal(await cache.getOrCompute(orgResultKey('a', afterEvidenceWrite, 'evidence.list', {}), async () => 'evidence2'), 'evidence2');
  assert.equal(await cache.getOrCompute(orgResultKey('a', afterEvidenceWrite, 'vulnerabilities.list', {}), async () => 'again'), 'vulns2');
  assert.equal(cache.size, 3);
});
