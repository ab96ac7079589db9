import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultCache, orgResultKey } from '../../src/domain/result-cache.ts';
import { INITIAL_DATA_VERSIONS, type DataVersions } from '../../src/domain/data-versions.ts';

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

test('concurrent misses share one computation; failures are not kept; the oldest entry is evicted', async () => {
  const cache = new ResultCache(2);
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
  const cache = new ResultCache(100);
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
