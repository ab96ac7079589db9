// HEAP_GROWTH_PERCENT: 100 unless set; 0 keeps V8's own factor; anything V8 would not take as a
// growth factor (below 10 %, above 300 %, not a whole number) stops the start with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, DEFAULT_HEAP_GROWTH_PERCENT, loadConfig } from '../../src/config.ts';

const growth = (value?: string) => loadConfig(value === undefined ? {} : { HEAP_GROWTH_PERCENT: value }).heapGrowthPercent;

test('unset or empty, the heap may grow to twice what survived', () => {
  assert.equal(DEFAULT_HEAP_GROWTH_PERCENT, 100);
  assert.equal(growth(), 100);
  assert.equal(growth(''), 100);
});

test('0 keeps V8 own factor; 10 to 300 are taken as given', () => {
  assert.equal(growth('0'), 0);
  assert.equal(growth('10'), 10);
  assert.equal(growth('300'), 300);
});

test('other values are refused, naming the variable and what it takes', () => {
  for (const bad of ['5', '301', '-1', '1.5', 'twice'])
    assert.throws(
      () => growth(bad),
      (err) => err instanceof ConfigError && err.message.startsWith('HEAP_GROWTH_PERCENT must be'),
      bad,
    );
});
